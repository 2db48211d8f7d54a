/**
 * The account page's calls, under /api/auth/account:
 * - GET    /account                 who is logged in: e-mail, verification, plan, member since;
 * - POST   /account/password        change the password (current one required; other logins end);
 * - POST   /account/email           change the e-mail: a link goes to the new address, which takes
 *                                   over only once confirmed (POST /account/email/confirm);
 * - GET    /account/export          everything stored about the user, as a JSON download;
 * - GET    /account/payments        billing history (the billing service's payments, newest first);
 * - POST   /account/delete          delete the account after checking the password.
 * DELETE /api/auth/account (the contract's call) takes the password too; both send a confirmation
 * e-mail (AuthService.deleteAccount).
 */
import {
  type Account,
  AppError,
  accountExportSchema,
  accountSchema,
  emailChangeConfirmResponseSchema,
  emailChangeResponseSchema,
  emailSchema,
  glossaryOf,
  type Language,
  languageSchema,
  newPasswordSchema,
  normalizeLanguage,
  type PaymentRow,
  pageUrl,
  passwordSchema,
  paymentsResponseSchema,
  sessionSchema,
} from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { formatDuration, type Logger, type Mailer, renderMail } from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import { errorResponses } from "../errors.ts";
import type { ZodApp } from "../zod-app.ts";
import { assertUid, requireAuth } from "./guard.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import type { AuthService } from "./service.ts";
import type { TokenSigner } from "./tokens.ts";

/** E-mail change links: signed with the JWT secret but for another audience, so never an ID token. */
const CHANGE_ISSUER = "kikitori";
const CHANGE_AUDIENCE = "kikitori-email-change";

export interface AccountDeps {
  db: Db;
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
    const user = await this.d.db.user.findUnique({ where: { id: uid } });
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
    await this.d.db.$transaction([
      this.d.db.user.update({ where: { id: uid }, data: { passwordHash } }),
      this.d.db.refreshToken.updateMany({ where: { userId: uid, revokedAt: null }, data: { revokedAt: this.now() } }),
    ]);
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
    const taken = await this.d.db.user.findUnique({ where: { email: newEmail }, select: { language: true } });
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
    const u = await this.d.db.user.findUnique({ where: { id: uid } });
    if (!u) throw new AppError("INVALID_TOKEN", "This link is not valid");
    if (u.email === newEmail) throw new AppError("TOKEN_USED", "This link has already been used");
    // A later change (or another link) already moved the account on: this link is stale.
    if (u.email !== oldEmail) throw new AppError("INVALID_TOKEN", "This link is not valid");
    try {
      await this.d.db.$transaction([
        this.d.db.user.update({ where: { id: uid }, data: { email: newEmail, emailVerified: true } }),
        this.d.db.refreshToken.updateMany({ where: { userId: uid, revokedAt: null }, data: { revokedAt: this.now() } }),
      ]);
    } catch (err) {
      if ((err as { code?: string }).code === "P2002") {
        throw new AppError("EMAIL_ALREADY_IN_USE", "An account with this e-mail already exists");
      }
      throw err;
    }
    await this.d.auth.endAllSessions(uid);
    return { email: newEmail };
  }

  async payments(uid: string): Promise<PaymentRow[]> {
    const rows = await this.d.db.payment.findMany({
      where: { userId: uid, status: { in: ["succeeded", "failed", "refunded"] } },
      orderBy: { createdAt: "desc" },
      take: 100,
    });
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
    const [jobs, textRuns, usageEvents, payments, shares] = await Promise.all([
      this.d.db.transcriptionJob.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } }),
      this.d.db.textRun.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } }),
      this.d.db.usageEvent.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } }),
      this.payments(uid),
      // Share links without their token hash (the token itself is never kept).
      this.d.db.transcriptShare.findMany({
        where: { userId: uid },
        orderBy: { createdAt: "asc" },
        omit: { tokenHash: true, userId: true },
      }),
    ]);
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
      transcriptions: jobs.map((j) => ({
        jobId: j.id,
        createdAt: j.createdAt.toISOString(),
        status: j.status,
        originalName: j.originalName,
        fileType: j.model,
        durationSeconds: j.durationSeconds,
        interviewer: j.interviewer,
        interviewee: j.interviewee,
        tone: j.tone,
        interviewExample: j.interviewExample,
        audioLanguage: j.audioLanguage,
        detectedLanguage: j.detectedLanguage,
        glossary: glossaryOf(j.glossary),
        transcription: j.transcription,
        rewrittenText: j.rewrittenText,
      })),
      textRuns: textRuns.map((r) => ({
        id: r.id,
        kind: r.kind,
        createdAt: r.createdAt.toISOString(),
        status: r.status,
        inputChars: r.inputChars,
        result: r.result,
      })),
      usageEvents,
      payments,
      shareLinks: shares.map((l) => ({
        id: l.id,
        jobId: l.jobId,
        includeAudio: l.includeAudio,
        createdAt: l.createdAt.toISOString(),
        expiresAt: l.expiresAt.toISOString(),
        revokedAt: l.revokedAt?.toISOString() ?? null,
        lastOpenedAt: l.lastOpenedAt?.toISOString() ?? null,
      })),
    };
  }

  /** Deletes the account once the password is confirmed (AuthService sends the confirmation e-mail). */
  async deleteWithPassword(uid: string, password: string): Promise<void> {
    await this.d.auth.confirmPassword(uid, password);
    await this.d.auth.deleteAccount(uid);
  }
}

export interface AccountRoutesOptions {
  account: AccountService;
  signer: TokenSigner;
  perIpPerMinute: number;
}

interface AccountRouteContext {
  account: AccountService;
  guard: ReturnType<typeof requireAuth>;
  limited: { rateLimit: { max: number; timeWindow: string } };
  tags: string[];
  security: { bearer: never[] }[];
}

export const accountRoutes: FastifyPluginAsyncZod<AccountRoutesOptions> = async (app, opts) => {
  const ctx: AccountRouteContext = {
    account: opts.account,
    guard: requireAuth(opts.signer),
    limited: { rateLimit: { max: opts.perIpPerMinute, timeWindow: "1 minute" } },
    tags: ["identity"],
    security: [{ bearer: [] }],
  };
  loginDetailRoutes(app, ctx);
  accountDataRoutes(app, ctx);
};

/** The account itself, its password and its e-mail address. */
function loginDetailRoutes(app: ZodApp, { account, guard, limited, tags, security }: AccountRouteContext): void {
  app.get(
    "/account",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The logged-in account: e-mail, verification, plan, member since",
        security,
        response: { 200: accountSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => account.account(assertUid(req, undefined)),
  );

  app.post(
    "/account/password",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        summary: "Change the password (the current one is required); other logins end, this one gets a new session",
        security,
        body: z.object({ currentPassword: passwordSchema, newPassword: newPasswordSchema }),
        response: { 200: sessionSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => account.changePassword(assertUid(req, undefined), req.body.currentPassword, req.body.newPassword),
  );

  app.post(
    "/account/email",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        summary: "Ask to change the e-mail: a confirmation link goes to the new address (202)",
        security,
        body: z.object({ password: passwordSchema, newEmail: emailSchema, language: languageSchema.default("en") }),
        response: { 202: emailChangeResponseSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const out = await account.requestEmailChange(assertUid(req, undefined), b.password, b.newEmail, b.language);
      return reply.code(202).send(out);
    },
  );

  app.post(
    "/account/email/confirm",
    {
      config: limited,
      schema: {
        tags,
        summary: "Confirm a new e-mail address with the token from the link (every login ends)",
        body: z.object({ token: z.string().min(16).max(4096) }),
        response: { 200: emailChangeConfirmResponseSchema, ...errorResponses(400, 409, 429) },
      },
    },
    async (req) => account.confirmEmailChange(req.body.token),
  );
}

/** What the account holds: its payments, an export of its data, and its deletion. */
function accountDataRoutes(app: ZodApp, { account, guard, limited, tags, security }: AccountRouteContext): void {
  app.get(
    "/account/payments",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Billing history: the account's payments, newest first",
        security,
        response: { 200: paymentsResponseSchema, ...errorResponses(401) },
      },
    },
    async (req) => ({ payments: await account.payments(assertUid(req, undefined)) }),
  );

  app.get(
    "/account/export",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Download everything stored about the account (JSON)",
        security,
        response: { 200: accountExportSchema, ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      const data = await account.export(assertUid(req, undefined));
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header("content-disposition", `attachment; filename="kikitori-data-${day}.json"`)
        .header("cache-control", "no-store")
        .send(data);
    },
  );

  app.post(
    "/account/delete",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        summary: "Delete the account after checking the password; a confirmation e-mail follows",
        security,
        body: z.object({ password: passwordSchema }),
        response: { 204: z.null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      await account.deleteWithPassword(assertUid(req, undefined), req.body.password);
      return reply.code(204).send(null);
    },
  );
}
