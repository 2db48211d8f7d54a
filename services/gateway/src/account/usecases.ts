// The account page's use cases: the account, its password and e-mail address, its payments, an
// export of everything stored about it, and its deletion (through AuthService, which also ends its
// sessions). The records are behind an AccountRepository (account/repository.ts in Postgres; in
// memory in tests/support/use-cases.ts); the routes are account/routes.ts.
import {
  type Account,
  AppError,
  glossaryOf,
  type Language,
  normalizeLanguage,
  type PaymentRow,
  pageUrl,
} from "@kikitori/shared";
import { formatDuration, type Logger, type Mailer, renderMail } from "@kikitori/shared/server";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { hashPassword, verifyPassword } from "../auth/passwords.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import type { AuthService } from "../auth/usecases.ts";

/** E-mail change links: signed with the JWT secret but for another audience, so never an ID token. */
const CHANGE_ISSUER = "kikitori";
const CHANGE_AUDIENCE = "kikitori-email-change";

/** The account's row as the use cases read it. */
export interface AccountUser {
  id: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string;
  language: string;
  plan: Account["plan"];
  pendingPlan: Account["pendingPlan"];
  resetDate: Date;
  createdAt: Date;
  periodStart: Date;
  glossary: unknown;
  secondsUsed: number;
  summariesUsed: number;
  titleRunsUsed: number;
}

/** A payment as the billing service stored it (amount in minor units). */
export interface PaymentRecord {
  id: string;
  createdAt: Date;
  kind: PaymentRow["kind"];
  fromPlan: PaymentRow["fromPlan"];
  plan: PaymentRow["plan"];
  amount: number;
  currency: string;
  status: PaymentRow["status"];
  cardBrand: string | null;
  cardLast4: string | null;
  periodStart: Date;
  periodEnd: Date;
}

/** The account's records (account/repository.ts). */
export interface AccountRepository {
  user(uid: string): Promise<AccountUser | null>;
  /** The language of the account with this address, or null when there is none. */
  languageOfEmail(email: string): Promise<{ language: string } | null>;
  /** The new password hash and every refresh token of the user revoked, in one transaction. */
  setPassword(uid: string, passwordHash: string, now: Date): Promise<void>;
  /** The new (verified) address and every refresh token revoked, in one transaction; false when it is taken. */
  changeEmail(uid: string, email: string, now: Date): Promise<boolean>;
  /** Paid, failed and refunded payments, newest first (at most 100). */
  payments(uid: string): Promise<PaymentRecord[]>;
  /** The user's jobs, text runs, usage events and share links as the export shows them, oldest first. */
  exportRecords(uid: string): Promise<{
    transcriptions: object[];
    textRuns: object[];
    usageEvents: object[];
    shareLinks: object[];
  }>;
}

export interface AccountDeps {
  repo: AccountRepository;
  auth: AuthService;
  signer: TokenSigner;
  mailer: Mailer;
  logger: Logger;
  config: { APP_NAME: string; PUBLIC_URL: string; JWT_SECRET: string; VERIFY_TOKEN_TTL_HOURS: number };
  now?: () => Date;
}

/** Currencies without minor units (the billing service stores whole yen). */
const ZERO_DECIMAL = new Set(["JPY", "KRW", "VND"]);
export function toMajorUnits(amount: number, currency: string): number {
  return ZERO_DECIMAL.has(currency.toUpperCase()) ? amount : amount / 100;
}

export class AccountService {
  private readonly now: () => Date;
  private readonly key: Uint8Array;
  constructor(private readonly d: AccountDeps) {
    this.now = d.now ?? (() => new Date());
    this.key = new TextEncoder().encode(d.config.JWT_SECRET);
  }

  private async user(uid: string) {
    const user = await this.d.repo.user(uid);
    if (!user) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
    return user;
  }

  private async checkPassword(passwordHash: string, password: string): Promise<void> {
    if (!(await verifyPassword(passwordHash, password))) {
      throw new AppError("PASSWORD_INCORRECT", "The password is not correct");
    }
  }

  async account(uid: string): Promise<Account> {
    const u = await this.user(uid);
    return {
      uid: u.id,
      email: u.email,
      emailVerified: u.emailVerified,
      language: u.language,
      plan: u.plan,
      pendingPlan: u.pendingPlan,
      resetDate: u.resetDate.toISOString(),
      createdAt: u.createdAt.toISOString(),
    };
  }

  /** Sets a new password; every other login ends, and this one gets a fresh session. */
  async changePassword(uid: string, currentPassword: string, newPassword: string) {
    const u = await this.user(uid);
    await this.checkPassword(u.passwordHash, currentPassword);
    const passwordHash = await hashPassword(newPassword);
    await this.d.repo.setPassword(uid, passwordHash, this.now());
    // ID tokens issued before the change end too, not only the refresh tokens.
    await this.d.auth.endAllSessions(uid);
    return this.d.auth.login(u.email, newPassword);
  }

  /**
   * Sends a confirmation link to the new address; the account keeps the old one until it is used.
   * A taken address answers the same (no account enumeration): its owner gets a mail saying someone
   * tried to use it, and no link is made.
   */
  async requestEmailChange(uid: string, password: string, newEmail: string, language: Language) {
    const u = await this.user(uid);
    await this.checkPassword(u.passwordHash, password);
    if (newEmail === u.email) throw new AppError("VALIDATION_FAILED", "This is already the account's e-mail address");
    const taken = await this.d.repo.languageOfEmail(newEmail);
    if (taken) {
      const lang = normalizeLanguage(taken.language);
      const link = pageUrl(this.d.config.PUBLIC_URL, lang, "login");
      const mail = renderMail("emailChangeAttempt", lang, { app: this.d.config.APP_NAME, link });
      await this.d.mailer.send({ to: newEmail, ...mail, link });
      return { pendingEmail: newEmail };
    }
    const now = this.now();
    const iat = Math.floor(now.getTime() / 1000);
    const token = await new SignJWT({ old: u.email, new: newEmail })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(uid)
      .setIssuer(CHANGE_ISSUER)
      .setAudience(CHANGE_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.d.config.VERIFY_TOKEN_TTL_HOURS * 3600)
      .sign(this.key);
    const link = pageUrl(
      this.d.config.PUBLIC_URL,
      language,
      "verifyEmail",
      `?token=${encodeURIComponent(token)}&kind=email-change`,
    );
    const mail = renderMail("emailChange", language, {
      app: this.d.config.APP_NAME,
      link,
      email: newEmail,
      duration: formatDuration(language, this.d.config.VERIFY_TOKEN_TTL_HOURS, "hour"),
    });
    await this.d.mailer.send({ to: newEmail, ...mail, link });
    return { pendingEmail: newEmail };
  }

  /** Uses a change link: the new address becomes the login (and counts as verified); logins end. */
  async confirmEmailChange(token: string): Promise<{ email: string }> {
    let claims: { sub?: string; old?: unknown; new?: unknown };
    try {
      ({ payload: claims } = await jwtVerify(token, this.key, {
        issuer: CHANGE_ISSUER,
        audience: CHANGE_AUDIENCE,
        algorithms: ["HS256"],
        currentDate: this.now(),
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new AppError("EMAIL_TOKEN_EXPIRED", "This link has expired");
      throw new AppError("INVALID_TOKEN", "This link is not valid");
    }
    const uid = claims.sub;
    const oldEmail = typeof claims.old === "string" ? claims.old : "";
    const newEmail = typeof claims.new === "string" ? claims.new : "";
    if (!uid || !oldEmail || !newEmail) throw new AppError("INVALID_TOKEN", "This link is not valid");
    const u = await this.d.repo.user(uid);
    if (!u) throw new AppError("INVALID_TOKEN", "This link is not valid");
    if (u.email === newEmail) throw new AppError("TOKEN_USED", "This link has already been used");
    // A later change (or another link) already moved the account on: this link is stale.
    if (u.email !== oldEmail) throw new AppError("INVALID_TOKEN", "This link is not valid");
    if (!(await this.d.repo.changeEmail(uid, newEmail, this.now()))) {
      throw new AppError("EMAIL_ALREADY_IN_USE", "An account with this e-mail already exists");
    }
    await this.d.auth.endAllSessions(uid);
    return { email: newEmail };
  }

  async payments(uid: string): Promise<PaymentRow[]> {
    const rows = await this.d.repo.payments(uid);
    return rows.map((p) => ({
      id: p.id,
      date: p.createdAt.toISOString(),
      kind: p.kind,
      fromPlan: p.fromPlan,
      plan: p.plan,
      amount: toMajorUnits(p.amount, p.currency),
      currency: p.currency,
      status: p.status,
      card: p.cardLast4 ? `${p.cardBrand ?? "card"} •••• ${p.cardLast4}` : null,
      periodStart: p.periodStart.toISOString(),
      periodEnd: p.periodEnd.toISOString(),
    }));
  }

  /** Everything stored about the user (no password hash, no secrets, no audio bytes). */
  async export(uid: string): Promise<Record<string, unknown>> {
    const u = await this.user(uid);
    const [records, payments] = await Promise.all([this.d.repo.exportRecords(uid), this.payments(uid)]);
    return {
      exportedAt: this.now().toISOString(),
      account: await this.account(uid),
      glossary: glossaryOf(u.glossary),
      usage: {
        periodStart: u.periodStart.toISOString(),
        resetDate: u.resetDate.toISOString(),
        secondsUsed: u.secondsUsed,
        summariesUsed: u.summariesUsed,
        titleRunsUsed: u.titleRunsUsed,
      },
      transcriptions: records.transcriptions,
      textRuns: records.textRuns,
      usageEvents: records.usageEvents,
      payments,
      shareLinks: records.shareLinks,
    };
  }

  /** Deletes the account once the password is confirmed (AuthService sends the confirmation e-mail). */
  async deleteWithPassword(uid: string, password: string): Promise<void> {
    await this.d.auth.confirmPassword(uid, password);
    await this.d.auth.deleteAccount(uid);
  }
}
