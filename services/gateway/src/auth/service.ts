import { randomUUID } from "node:crypto";
import {
  AppError,
  type AuthUser,
  addMonthsAnchored,
  type Language,
  normalizeLanguage,
  pageUrl,
  type Session,
} from "@kikitori/shared";
import type { Db, Prisma } from "@kikitori/shared/db";
import {
  formatDuration,
  jobLifecycle,
  type Logger,
  type Mailer,
  type ObjectStore,
  renderMail,
} from "@kikitori/shared/server";
import { hashPassword, verifyAgainstDummy, verifyPassword } from "./passwords.ts";
import type { TokenRevocations } from "./revocation.ts";
import { hashToken, newOpaqueToken, type TokenSigner } from "./tokens.ts";

export interface AuthServiceDeps {
  db: Db;
  signer: TokenSigner;
  mailer: Mailer;
  store: ObjectStore;
  logger: Logger;
  config: {
    APP_NAME: string;
    PUBLIC_URL: string;
    REFRESH_TOKEN_TTL_DAYS: number;
    VERIFY_TOKEN_TTL_HOURS: number;
    RESET_TOKEN_TTL_MINUTES: number;
  };
  now?: () => Date;
  /** Called after an account is deleted (e.g. to close its sockets). */
  onAccountDeleted?: (uid: string) => void;
  /** Ends ID tokens at logout, password reset and account deletion (else they live until they expire). */
  revocations?: TokenRevocations;
  /** Called after every login of a user ended, or with `sid` one login (e.g. to close its sockets). */
  onSessionsEnded?: (uid: string, sid?: string) => void;
}

/** A reused refresh token within this window is refused without revoking the family (two tabs racing). */
const REUSE_GRACE_MS = 30_000;

/** User-scoped object keys live under this prefix; deleting an account removes all of it. */
export const userObjectPrefix = (uid: string) => `users/${uid}/`;

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === "P2002";

export class AuthService {
  private readonly now: () => Date;
  constructor(private readonly d: AuthServiceDeps) {
    this.now = d.now ?? (() => new Date());
  }

  /**
   * Registration answers alike for a new and a taken address (no account enumeration): both hash
   * the password and try the insert; what differs is the mail, which the caller sends after the
   * answer (`mail`). A new account gets its verification link; the owner of a taken address is told
   * that someone tried to register with it.
   */
  async register(email: string, password: string, language: Language): Promise<{ mail: () => Promise<void> }> {
    const passwordHash = await hashPassword(password);
    const now = this.now();
    const uid = randomUUID();
    const { token, hash } = newOpaqueToken();
    try {
      // User, backend record and verification token in one transaction: a failure leaves nothing behind.
      await this.d.db.$transaction(async (tx) => {
        await tx.user.create({
          data: {
            id: uid,
            email,
            passwordHash,
            language,
            backendRecordedAt: now,
            periodStart: now,
            resetDate: addMonthsAnchored(now, 1),
            anchorDay: now.getUTCDate(),
          },
        });
        await tx.emailToken.create({
          data: {
            id: randomUUID(),
            userId: uid,
            kind: "verify_email",
            tokenHash: hash,
            expiresAt: new Date(now.getTime() + this.d.config.VERIFY_TOKEN_TTL_HOURS * 3600_000),
          },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) return { mail: () => this.sendRegisterAttempt(email, language) };
      throw err;
    }
    return {
      mail: async () => {
        try {
          await this.sendVerification(email, language, token);
        } catch (err) {
          // Without the mail the account could never be verified: undo it, so the address is free
          // to register again and nothing is half-written.
          await this.d.db.user.deleteMany({ where: { id: uid, emailVerified: false } });
          throw err;
        }
      },
    };
  }

  /** Tells the owner of `email` that someone tried to register with it (in the owner's language). */
  private async sendRegisterAttempt(email: string, language: Language): Promise<void> {
    const owner = await this.d.db.user.findUnique({ where: { email }, select: { language: true } });
    if (!owner) return;
    const lang = normalizeLanguage(owner.language ?? language);
    const link = pageUrl(this.d.config.PUBLIC_URL, lang, "passwordReset");
    const mail = renderMail("registerAttempt", lang, { app: this.d.config.APP_NAME, link });
    await this.d.mailer.send({ to: email, ...mail, link });
  }

  /** Sends a fresh verification link when the account exists and is unverified; silent otherwise. */
  async resendVerification(email: string, language: Language): Promise<void> {
    const user = await this.d.db.user.findUnique({ where: { email } });
    if (!user || user.emailVerified) return;
    const { token, hash } = newOpaqueToken();
    const now = this.now();
    await this.d.db.emailToken.create({
      data: {
        id: randomUUID(),
        userId: user.id,
        kind: "verify_email",
        tokenHash: hash,
        expiresAt: new Date(now.getTime() + this.d.config.VERIFY_TOKEN_TTL_HOURS * 3600_000),
      },
    });
    await this.sendVerification(email, language, token);
  }

  private async sendVerification(email: string, language: Language, token: string): Promise<void> {
    const link = pageUrl(this.d.config.PUBLIC_URL, language, "verifyEmail", `?token=${encodeURIComponent(token)}`);
    const mail = renderMail("verify", language, {
      app: this.d.config.APP_NAME,
      link,
      duration: formatDuration(language, this.d.config.VERIFY_TOKEN_TTL_HOURS, "hour"),
    });
    await this.d.mailer.send({ to: email, ...mail, link });
  }

  /** Marks a single-use e-mail token used; throws the matching error code when it cannot be used. */
  private async consumeEmailToken(
    tx: Prisma.TransactionClient,
    token: string,
    kind: "verify_email" | "password_reset",
  ): Promise<{ userId: string }> {
    const row = await tx.emailToken.findUnique({ where: { tokenHash: hashToken(token) } });
    if (!row || row.kind !== kind) throw new AppError("INVALID_TOKEN", "This link is not valid");
    if (row.usedAt) throw new AppError("TOKEN_USED", "This link has already been used");
    if (row.expiresAt <= this.now()) throw new AppError("EMAIL_TOKEN_EXPIRED", "This link has expired");
    const { count } = await tx.emailToken.updateMany({
      where: { id: row.id, usedAt: null },
      data: { usedAt: this.now() },
    });
    if (count !== 1) throw new AppError("TOKEN_USED", "This link has already been used");
    return { userId: row.userId };
  }

  async verifyEmail(token: string): Promise<void> {
    await this.d.db.$transaction(async (tx) => {
      const { userId } = await this.consumeEmailToken(tx, token, "verify_email");
      await tx.user.update({ where: { id: userId }, data: { emailVerified: true } });
    });
  }

  async login(email: string, password: string): Promise<Session> {
    const user = await this.d.db.user.findUnique({ where: { email } });
    if (!user) {
      await verifyAgainstDummy(password);
      throw new AppError("INVALID_CREDENTIALS", "Login failed. Please check your email and password.");
    }
    if (!(await verifyPassword(user.passwordHash, password))) {
      throw new AppError("INVALID_CREDENTIALS", "Login failed. Please check your email and password.");
    }
    if (!user.emailVerified) {
      throw new AppError("EMAIL_NOT_VERIFIED", "E-mail verification is not complete. Please check your e-mail.");
    }
    return this.issueSession(user, randomUUID());
  }

  private async issueSession(
    user: { id: string; email: string; emailVerified: boolean },
    familyId: string,
    tx: Prisma.TransactionClient | Db = this.d.db,
  ): Promise<Session> {
    const now = this.now();
    const { token, hash } = newOpaqueToken();
    await tx.refreshToken.create({
      data: {
        id: randomUUID(),
        userId: user.id,
        familyId,
        tokenHash: hash,
        expiresAt: new Date(now.getTime() + this.d.config.REFRESH_TOKEN_TTL_DAYS * 86_400_000),
      },
    });
    const idToken = await this.d.signer.sign(
      { sub: user.id, email: user.email, email_verified: user.emailVerified, sid: familyId },
      now.getTime(),
    );
    return {
      idToken,
      refreshToken: token,
      expiresIn: this.d.signer.idTokenTtlSeconds,
      user: { uid: user.id, email: user.email, emailVerified: user.emailVerified },
    };
  }

  /** Refresh-token rotation with reuse detection. */
  async refresh(refreshToken: string): Promise<Session> {
    const invalid = () => new AppError("INVALID_REFRESH_TOKEN", "The session has ended. Please log in again.");
    const now = this.now();
    const row = await this.d.db.refreshToken.findUnique({
      where: { tokenHash: hashToken(refreshToken) },
      include: { user: true },
    });
    if (!row || row.revokedAt || row.expiresAt <= now) throw invalid();
    if (row.rotatedAt) {
      if (now.getTime() - row.rotatedAt.getTime() > REUSE_GRACE_MS) {
        // A token used after it was replaced: treat as stolen and end the whole login.
        await this.d.db.refreshToken.updateMany({
          where: { familyId: row.familyId, revokedAt: null },
          data: { revokedAt: now },
        });
        // The login's ID tokens and sockets end with it.
        await this.d.revocations?.endSession(row.familyId);
        this.d.onSessionsEnded?.(row.userId, row.familyId);
        this.d.logger.warn({ uid: row.userId, familyId: row.familyId }, "refresh token reuse: family revoked");
      }
      throw invalid();
    }
    return this.d.db.$transaction(async (tx) => {
      const { count } = await tx.refreshToken.updateMany({
        where: { id: row.id, rotatedAt: null, revokedAt: null },
        data: { rotatedAt: now },
      });
      if (count !== 1) throw invalid();
      return this.issueSession(row.user, row.familyId, tx);
    });
  }

  async logout(refreshToken: string): Promise<void> {
    const row = await this.d.db.refreshToken.findUnique({ where: { tokenHash: hashToken(refreshToken) } });
    if (!row) return;
    await this.d.db.refreshToken.updateMany({
      where: { familyId: row.familyId, revokedAt: null },
      data: { revokedAt: this.now() },
    });
    // The login's ID tokens and sockets end with it, not an hour later.
    await this.d.revocations?.endSession(row.familyId);
    this.d.onSessionsEnded?.(row.userId, row.familyId);
  }

  /**
   * Ends every login of the user now: refresh tokens are revoked and ID tokens issued until now stop
   * working (password change or reset, account deletion). Logins made afterwards are not affected.
   */
  async endAllSessions(uid: string): Promise<void> {
    const now = this.now();
    await this.d.db.refreshToken.updateMany({ where: { userId: uid, revokedAt: null }, data: { revokedAt: now } });
    await this.d.revocations?.endAllSessions(uid, now.getTime());
    this.d.onSessionsEnded?.(uid);
  }

  /** Always succeeds from the caller's view (no account enumeration). */
  async requestPasswordReset(email: string, language: Language): Promise<void> {
    const user = await this.d.db.user.findUnique({ where: { email } });
    if (!user) return;
    const { token, hash } = newOpaqueToken();
    const now = this.now();
    await this.d.db.emailToken.create({
      data: {
        id: randomUUID(),
        userId: user.id,
        kind: "password_reset",
        tokenHash: hash,
        expiresAt: new Date(now.getTime() + this.d.config.RESET_TOKEN_TTL_MINUTES * 60_000),
      },
    });
    const link = pageUrl(
      this.d.config.PUBLIC_URL,
      language,
      "passwordResetConfirm",
      `?token=${encodeURIComponent(token)}`,
    );
    const mail = renderMail("reset", language, {
      app: this.d.config.APP_NAME,
      link,
      duration: formatDuration(language, this.d.config.RESET_TOKEN_TTL_MINUTES, "minute"),
    });
    await this.d.mailer.send({ to: email, ...mail, link });
  }

  /** Whether a reset link can still be used (read-only), so the page can say so before the form. */
  async checkPasswordResetToken(token: string): Promise<void> {
    const row = await this.d.db.emailToken.findUnique({ where: { tokenHash: hashToken(token) } });
    if (row?.kind !== "password_reset") throw new AppError("INVALID_TOKEN", "This link is not valid");
    if (row.usedAt) throw new AppError("TOKEN_USED", "This link has already been used");
    if (row.expiresAt <= this.now()) throw new AppError("EMAIL_TOKEN_EXPIRED", "This link has expired");
  }

  async confirmPasswordReset(token: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    const userId = await this.d.db.$transaction(async (tx) => {
      const { userId } = await this.consumeEmailToken(tx, token, "password_reset");
      // The link proved the mailbox, so the address counts as verified; every session ends.
      await tx.user.update({ where: { id: userId }, data: { passwordHash, emailVerified: true } });
      await tx.refreshToken.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: this.now() } });
      await tx.emailToken.updateMany({
        where: { userId, kind: "password_reset", usedAt: null },
        data: { usedAt: this.now() },
      });
      return userId;
    });
    // ID tokens issued before the reset stop working too (a stolen one must not last its hour).
    await this.d.revocations?.endAllSessions(userId, this.now().getTime());
    this.d.onSessionsEnded?.(userId);
  }

  /** POST /api/auth/users: idempotently records the backend user of the token's own account. */
  async recordBackendUser(uid: string, email: string): Promise<AuthUser> {
    const user = await this.d.db.user.findUnique({ where: { id: uid } });
    if (!user) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
    if (user.email !== email) throw new AppError("VALIDATION_FAILED", "The e-mail does not belong to this account");
    if (!user.backendRecordedAt) {
      await this.d.db.user.update({ where: { id: uid }, data: { backendRecordedAt: this.now() } });
    }
    return { uid: user.id, email: user.email, emailVerified: user.emailVerified };
  }

  /**
   * The account's password, checked before a destructive call (deleting the account or its data):
   * a stolen ID token alone must not be enough. 403 PASSWORD_INCORRECT when wrong.
   */
  async confirmPassword(uid: string, password: string): Promise<void> {
    const user = await this.d.db.user.findUnique({ where: { id: uid }, select: { passwordHash: true } });
    if (!user) {
      await verifyAgainstDummy(password);
      throw new AppError("USER_NOT_FOUND", "No account exists for this token");
    }
    if (!(await verifyPassword(user.passwordHash, password))) {
      throw new AppError("PASSWORD_INCORRECT", "The password is not correct");
    }
  }

  /**
   * DELETE /api/auth/users/{uid}: removes the backend user's data (objects, usage); idempotent. The
   * jobs' audio is gone with the objects, so it is marked deleted first (410, not a failed read).
   */
  async deleteBackendUser(uid: string): Promise<void> {
    await jobLifecycle.audioDeleted(this.d.db, { userId: uid }, this.now());
    await this.d.store.removePrefix(userObjectPrefix(uid));
    await this.d.db.$transaction([
      this.d.db.usageEvent.deleteMany({ where: { userId: uid } }),
      this.d.db.user.updateMany({ where: { id: uid }, data: { backendRecordedAt: null } }),
    ]);
  }

  /**
   * DELETE /api/auth/account: identity, sessions, backend user, stored audio and results. The address
   * then gets a confirmation e-mail (a failed mail is logged, the deletion stands).
   */
  async deleteAccount(uid: string): Promise<void> {
    const user = await this.d.db.user.findUnique({ where: { id: uid }, select: { email: true, language: true } });
    await this.d.store.removePrefix(userObjectPrefix(uid));
    // Rows referencing the user cascade (tokens, usage events, jobs).
    await this.d.db.user.deleteMany({ where: { id: uid } });
    await this.d.revocations?.endAllSessions(uid, this.now().getTime());
    this.d.onAccountDeleted?.(uid);
    if (user) await this.sendDeletedMail(user.email, normalizeLanguage(user.language));
  }

  private async sendDeletedMail(email: string, language: Language): Promise<void> {
    try {
      const link = pageUrl(this.d.config.PUBLIC_URL, language, "register");
      const mail = renderMail("accountDeleted", language, { app: this.d.config.APP_NAME, link });
      await this.d.mailer.send({ to: email, ...mail, link });
    } catch (err) {
      this.d.logger.error({ err }, "account deleted, but the confirmation mail could not be sent");
    }
  }
}
