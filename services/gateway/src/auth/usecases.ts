// Sign-up, sign-in and the account's end: registration and e-mail verification, login, refresh-token
// rotation with reuse detection, logout, password reset, the backend user record and deletion. The
// routes (auth/routes.ts) validate, rate-limit and authorise; the records are behind an
// AuthRepository (auth/repository.ts in Postgres; in memory in tests/support/use-cases.ts).
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
import { formatDuration, type Logger, type Mailer, type ObjectStore, renderMail } from "@kikitori/shared/server";
import { hashPassword, verifyAgainstDummy, verifyPassword } from "./passwords.ts";
import type { TokenRevocations } from "./revocation.ts";
import { hashToken, newOpaqueToken, type TokenSigner } from "./tokens.ts";

/** A login's user as the use cases read it. */
export interface LoginUser {
  id: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string;
  language: string | null;
}

export type EmailTokenKind = "verify_email" | "password_reset";

/** The sign-in records (auth/repository.ts). Each method is one statement unless it says otherwise. */
export interface AuthRepository {
  /** Runs `fn` with a repository whose calls all commit together or not at all. */
  transaction<T>(fn: (tx: AuthRepository) => Promise<T>): Promise<T>;
  /** The user with their verification token, in one transaction; false when the address is taken. */
  createUser(user: NewUser, verifyToken: NewEmailToken): Promise<boolean>;
  insertUser(user: NewUser): Promise<void>;
  /** Removes the user unless they verified their address meanwhile. */
  deleteUnverifiedUser(uid: string): Promise<void>;
  userByEmail(email: string): Promise<LoginUser | null>;
  userById(uid: string): Promise<(LoginUser & { backendRecordedAt: Date | null }) | null>;
  createEmailToken(token: NewEmailToken): Promise<void>;
  emailToken(
    tokenHash: string,
  ): Promise<{ id: string; userId: string; kind: string; usedAt: Date | null; expiresAt: Date } | null>;
  /** Marks the token used, only while unused; false when it was used meanwhile. */
  useEmailToken(id: string, now: Date): Promise<boolean>;
  /** Marks every unused token of the kind of the user used. */
  useEmailTokensOf(userId: string, kind: EmailTokenKind, now: Date): Promise<void>;
  markEmailVerified(uid: string): Promise<void>;
  /** The new password hash; the address counts as verified. */
  setPasswordVerified(uid: string, passwordHash: string): Promise<void>;
  createRefreshToken(token: {
    id: string;
    userId: string;
    familyId: string;
    tokenHash: string;
    expiresAt: Date;
  }): Promise<void>;
  refreshToken(tokenHash: string): Promise<{
    id: string;
    userId: string;
    familyId: string;
    revokedAt: Date | null;
    rotatedAt: Date | null;
    expiresAt: Date;
    user: { id: string; email: string; emailVerified: boolean };
  } | null>;
  /** Marks the token rotated, only while neither rotated nor revoked; false otherwise. */
  rotateRefreshToken(id: string, now: Date): Promise<boolean>;
  revokeFamily(familyId: string, now: Date): Promise<void>;
  revokeUserTokens(userId: string, now: Date): Promise<void>;
  markBackendRecorded(uid: string, now: Date): Promise<void>;
  /** The user's jobs lose their audio (through the job lifecycle module). */
  markAudioDeleted(uid: string, now: Date): Promise<void>;
  /** Usage events deleted and the backend record cleared, in one transaction. */
  forgetBackendUser(uid: string): Promise<void>;
  deleteUsageEvents(uid: string): Promise<void>;
  clearBackendRecord(uid: string): Promise<void>;
  /** The user and every row that references them. */
  deleteUser(uid: string): Promise<void>;
}

export interface NewUser {
  id: string;
  email: string;
  passwordHash: string;
  language: Language;
  registeredAt: Date;
  resetDate: Date;
  anchorDay: number;
}

export interface NewEmailToken {
  id: string;
  userId: string;
  kind: EmailTokenKind;
  tokenHash: string;
  expiresAt: Date;
}

export interface AuthServiceDeps {
  repo: AuthRepository;
  signer: TokenSigner;
  mailer: Mailer;
  /** The object store: a user's objects are removed with their data. */
  store: Pick<ObjectStore, "removePrefix">;
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
  revocations?: Pick<TokenRevocations, "endSession" | "endAllSessions">;
  /** Called after every login of a user ended, or with `sid` one login (e.g. to close its sockets). */
  onSessionsEnded?: (uid: string, sid?: string) => void;
}

/** A reused refresh token within this window is refused without revoking the family (two tabs racing). */
const REUSE_GRACE_MS = 30_000;

/** User-scoped object keys live under this prefix; deleting an account removes all of it. */
export const userObjectPrefix = (uid: string) => `users/${uid}/`;

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
    // User, backend record and verification token in one transaction: a failure leaves nothing behind.
    const created = await this.d.repo.createUser(
      {
        id: uid,
        email,
        passwordHash,
        language,
        registeredAt: now,
        resetDate: addMonthsAnchored(now, 1),
        anchorDay: now.getUTCDate(),
      },
      {
        id: randomUUID(),
        userId: uid,
        kind: "verify_email",
        tokenHash: hash,
        expiresAt: new Date(now.getTime() + this.d.config.VERIFY_TOKEN_TTL_HOURS * 3600_000),
      },
    );
    if (!created) return { mail: () => this.sendRegisterAttempt(email, language) };
    return {
      mail: async () => {
        try {
          await this.sendVerification(email, language, token);
        } catch (err) {
          // Without the mail the account could never be verified: undo it, so the address is free
          // to register again and nothing is half-written.
          await this.d.repo.deleteUnverifiedUser(uid);
          throw err;
        }
      },
    };
  }

  /** Tells the owner of `email` that someone tried to register with it (in the owner's language). */
  private async sendRegisterAttempt(email: string, language: Language): Promise<void> {
    const owner = await this.d.repo.userByEmail(email);
    if (!owner) return;
    const lang = normalizeLanguage(owner.language ?? language);
    const link = pageUrl(this.d.config.PUBLIC_URL, lang, "passwordReset");
    const mail = renderMail("registerAttempt", lang, { app: this.d.config.APP_NAME, link });
    await this.d.mailer.send({ to: email, ...mail, link });
  }

  /** Sends a fresh verification link when the account exists and is unverified; silent otherwise. */
  async resendVerification(email: string, language: Language): Promise<void> {
    const user = await this.d.repo.userByEmail(email);
    if (!user || user.emailVerified) return;
    const { token, hash } = newOpaqueToken();
    const now = this.now();
    await this.d.repo.createEmailToken({
      id: randomUUID(),
      userId: user.id,
      kind: "verify_email",
      tokenHash: hash,
      expiresAt: new Date(now.getTime() + this.d.config.VERIFY_TOKEN_TTL_HOURS * 3600_000),
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
    tx: AuthRepository,
    token: string,
    kind: EmailTokenKind,
  ): Promise<{ userId: string }> {
    const row = await tx.emailToken(hashToken(token));
    if (!row || row.kind !== kind) throw new AppError("INVALID_TOKEN", "This link is not valid");
    if (row.usedAt) throw new AppError("TOKEN_USED", "This link has already been used");
    if (row.expiresAt <= this.now()) throw new AppError("EMAIL_TOKEN_EXPIRED", "This link has expired");
    if (!(await tx.useEmailToken(row.id, this.now())))
      throw new AppError("TOKEN_USED", "This link has already been used");
    return { userId: row.userId };
  }

  async verifyEmail(token: string): Promise<void> {
    await this.d.repo.transaction(async (tx) => {
      const { userId } = await this.consumeEmailToken(tx, token, "verify_email");
      await tx.markEmailVerified(userId);
    });
  }

  async login(email: string, password: string): Promise<Session> {
    const user = await this.d.repo.userByEmail(email);
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
    tx: AuthRepository = this.d.repo,
  ): Promise<Session> {
    const now = this.now();
    const { token, hash } = newOpaqueToken();
    await tx.createRefreshToken({
      id: randomUUID(),
      userId: user.id,
      familyId,
      tokenHash: hash,
      expiresAt: new Date(now.getTime() + this.d.config.REFRESH_TOKEN_TTL_DAYS * 86_400_000),
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
    const row = await this.d.repo.refreshToken(hashToken(refreshToken));
    if (!row || row.revokedAt || row.expiresAt <= now) throw invalid();
    if (row.rotatedAt) {
      if (now.getTime() - row.rotatedAt.getTime() > REUSE_GRACE_MS) {
        // A token used after it was replaced: treat as stolen and end the whole login.
        await this.d.repo.revokeFamily(row.familyId, now);
        // The login's ID tokens and sockets end with it.
        await this.d.revocations?.endSession(row.familyId);
        this.d.onSessionsEnded?.(row.userId, row.familyId);
        this.d.logger.warn({ uid: row.userId, familyId: row.familyId }, "refresh token reuse: family revoked");
      }
      throw invalid();
    }
    return this.d.repo.transaction(async (tx) => {
      if (!(await tx.rotateRefreshToken(row.id, now))) throw invalid();
      return this.issueSession(row.user, row.familyId, tx);
    });
  }

  async logout(refreshToken: string): Promise<void> {
    const row = await this.d.repo.refreshToken(hashToken(refreshToken));
    if (!row) return;
    await this.d.repo.revokeFamily(row.familyId, this.now());
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
    await this.d.repo.revokeUserTokens(uid, now);
    await this.d.revocations?.endAllSessions(uid, now.getTime());
    this.d.onSessionsEnded?.(uid);
  }

  /** Always succeeds from the caller's view (no account enumeration). */
  async requestPasswordReset(email: string, language: Language): Promise<void> {
    const user = await this.d.repo.userByEmail(email);
    if (!user) return;
    const { token, hash } = newOpaqueToken();
    const now = this.now();
    await this.d.repo.createEmailToken({
      id: randomUUID(),
      userId: user.id,
      kind: "password_reset",
      tokenHash: hash,
      expiresAt: new Date(now.getTime() + this.d.config.RESET_TOKEN_TTL_MINUTES * 60_000),
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
    const row = await this.d.repo.emailToken(hashToken(token));
    if (row?.kind !== "password_reset") throw new AppError("INVALID_TOKEN", "This link is not valid");
    if (row.usedAt) throw new AppError("TOKEN_USED", "This link has already been used");
    if (row.expiresAt <= this.now()) throw new AppError("EMAIL_TOKEN_EXPIRED", "This link has expired");
  }

  async confirmPasswordReset(token: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    const userId = await this.d.repo.transaction(async (tx) => {
      const { userId } = await this.consumeEmailToken(tx, token, "password_reset");
      // The link proved the mailbox, so the address counts as verified; every session ends.
      await tx.setPasswordVerified(userId, passwordHash);
      await tx.revokeUserTokens(userId, this.now());
      await tx.useEmailTokensOf(userId, "password_reset", this.now());
      return userId;
    });
    // ID tokens issued before the reset stop working too (a stolen one must not last its hour).
    await this.d.revocations?.endAllSessions(userId, this.now().getTime());
    this.d.onSessionsEnded?.(userId);
  }

  /** POST /api/auth/users: idempotently records the backend user of the token's own account. */
  async recordBackendUser(uid: string, email: string): Promise<AuthUser> {
    const user = await this.d.repo.userById(uid);
    if (!user) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
    if (user.email !== email) throw new AppError("VALIDATION_FAILED", "The e-mail does not belong to this account");
    if (!user.backendRecordedAt) await this.d.repo.markBackendRecorded(uid, this.now());
    return { uid: user.id, email: user.email, emailVerified: user.emailVerified };
  }

  /**
   * The account's password, checked before a destructive call (deleting the account or its data):
   * a stolen ID token alone must not be enough. 403 PASSWORD_INCORRECT when wrong.
   */
  async confirmPassword(uid: string, password: string): Promise<void> {
    const user = await this.d.repo.userById(uid);
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
    await this.d.repo.markAudioDeleted(uid, this.now());
    await this.d.store.removePrefix(userObjectPrefix(uid));
    await this.d.repo.forgetBackendUser(uid);
  }

  /**
   * DELETE /api/auth/account: identity, sessions, backend user, stored audio and results. The address
   * then gets a confirmation e-mail (a failed mail is logged, the deletion stands).
   */
  async deleteAccount(uid: string): Promise<void> {
    const user = await this.d.repo.userById(uid);
    await this.d.store.removePrefix(userObjectPrefix(uid));
    await this.d.repo.deleteUser(uid);
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
