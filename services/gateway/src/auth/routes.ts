import {
  AppError,
  acceptedResponseSchema,
  authUserSchema,
  loginBodySchema,
  logoutBodySchema,
  passwordResetBodySchema,
  passwordResetCheckResponseSchema,
  passwordResetConfirmBodySchema,
  passwordSchema,
  recordUserBodySchema,
  refreshBodySchema,
  registerBodySchema,
  resendVerificationBodySchema,
  sessionSchema,
  verifyEmailBodySchema,
  verifyEmailResponseSchema,
} from "@kikitori/shared";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../errors.ts";
import type { ZodApp } from "../zod-app.ts";
import { assertUid, requireAuth } from "./guard.ts";
import type { EmailRateLimiter, LoginThrottle } from "./limits.ts";
import type { TokenSigner } from "./tokens.ts";
import type { AuthService } from "./usecases.ts";

export interface AuthRoutesOptions {
  auth: AuthService;
  signer: TokenSigner;
  emailLimiter: EmailRateLimiter;
  loginThrottle: LoginThrottle;
  perIpPerMinute: number;
}

type Log = { error: (o: object, m: string) => void };

interface AuthRouteContext {
  opts: AuthRoutesOptions;
  limited: { rateLimit: { max: number; timeWindow: string } };
  guard: ReturnType<typeof requireAuth>;
  tags: string[];
  afterAnswer: (log: Log, what: string, task: () => Promise<void>) => void;
}

export const authRoutes: FastifyPluginAsyncZod<AuthRoutesOptions> = async (app, opts) => {
  // Mails that depend on whether an account exists are sent after the answer, so that an existing
  // and an unknown address answer in the same time (no account enumeration by timing).
  const pending = new Set<Promise<void>>();
  const afterAnswer = (log: Log, what: string, task: () => Promise<void>) => {
    const p: Promise<void> = task()
      .catch((err) => log.error({ err }, `${what} failed`))
      .finally(() => pending.delete(p));
    pending.add(p);
  };
  app.addHook("onClose", async () => {
    await Promise.allSettled([...pending]);
  });
  const ctx: AuthRouteContext = {
    opts,
    limited: { rateLimit: { max: opts.perIpPerMinute, timeWindow: "1 minute" } },
    guard: requireAuth(opts.signer),
    tags: ["identity"],
    afterAnswer,
  };
  signUpRoutes(app, ctx);
  sessionRoutes(app, ctx);
  passwordResetRoutes(app, ctx);
  deletionRoutes(app, ctx);
};

/** Creating an account and confirming its e-mail address. */
function signUpRoutes(app: ZodApp, { opts, limited, tags, afterAnswer }: AuthRouteContext): void {
  const { auth, emailLimiter } = opts;
  app.post(
    "/register",
    {
      config: limited,
      schema: {
        tags,
        summary:
          "Create an account and send a verification e-mail (always 202: a taken address gets a mail to its owner instead)",
        body: registerBodySchema,
        response: { 202: acceptedResponseSchema, ...errorResponses(400, 429) },
      },
    },
    async (req, reply) => {
      await emailLimiter.hit("register", req.body.email);
      const { mail } = await auth.register(req.body.email, req.body.password, req.body.language);
      afterAnswer(req.log, "registration mail", mail);
      return reply.code(202).send({ message: "Check your e-mail to finish creating your account." });
    },
  );

  app.post(
    "/verify-email",
    {
      config: limited,
      schema: {
        tags,
        summary: "Confirm an e-mail address with the token from the link",
        body: verifyEmailBodySchema,
        response: { 200: verifyEmailResponseSchema, ...errorResponses(400, 429) },
      },
    },
    async (req) => {
      await auth.verifyEmail(req.body.token);
      return { emailVerified: true as const };
    },
  );

  app.post(
    "/resend-verification",
    {
      config: limited,
      schema: {
        tags,
        summary: "Send a new verification e-mail (always 202)",
        body: resendVerificationBodySchema,
        response: { 202: acceptedResponseSchema, ...errorResponses(400, 429) },
      },
    },
    async (req, reply) => {
      await emailLimiter.hit("resend", req.body.email);
      const { email, language } = req.body;
      afterAnswer(req.log, "resend verification", () => auth.resendVerification(email, language));
      return reply.code(202).send({ message: "If the account exists and is unverified, a new e-mail was sent." });
    },
  );
}

/** Logging in, refreshing the ID token and logging out. */
function sessionRoutes(app: ZodApp, { opts, limited, tags }: AuthRouteContext): void {
  const { auth } = opts;
  app.post(
    "/login",
    {
      config: limited,
      schema: {
        tags,
        summary: "Log in with e-mail and password",
        body: loginBodySchema,
        response: { 200: sessionSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req) => {
      const { email, password } = req.body;
      // Counted before the password is checked (parallel guesses cannot outrun the limit).
      await opts.loginThrottle.admit(email, req.ip);
      try {
        const session = await auth.login(email, password);
        await opts.loginThrottle.settle(email, req.ip, "right-password");
        return session;
      } catch (err) {
        const wrong = err instanceof AppError && err.code === "INVALID_CREDENTIALS";
        // EMAIL_NOT_VERIFIED comes after a right password.
        const right = err instanceof AppError && err.code === "EMAIL_NOT_VERIFIED";
        await opts.loginThrottle
          .settle(email, req.ip, wrong ? "wrong-password" : right ? "right-password" : "other")
          .catch((e) => req.log.warn({ err: e }, "login throttle not settled"));
        throw err;
      }
    },
  );

  app.post(
    "/refresh",
    {
      schema: {
        tags,
        summary: "Exchange a refresh token for a new ID token (the refresh token rotates)",
        body: refreshBodySchema,
        response: { 200: sessionSchema, ...errorResponses(400, 401) },
      },
    },
    async (req) => auth.refresh(req.body.refreshToken),
  );

  app.post(
    "/logout",
    {
      schema: {
        tags,
        summary: "Revoke a refresh token (and its rotation family)",
        body: logoutBodySchema,
        response: { 204: z.null(), ...errorResponses(400) },
      },
    },
    async (req, reply) => {
      await auth.logout(req.body.refreshToken);
      return reply.code(204).send(null);
    },
  );
}

/** Asking for a password-reset link, checking it and setting the new password. */
function passwordResetRoutes(app: ZodApp, { opts, limited, tags, afterAnswer }: AuthRouteContext): void {
  const { auth, emailLimiter } = opts;
  app.post(
    "/password-reset",
    {
      config: limited,
      schema: {
        tags,
        summary: "Send a password-reset link (always 202)",
        body: passwordResetBodySchema,
        response: { 202: acceptedResponseSchema, ...errorResponses(400, 429) },
      },
    },
    async (req, reply) => {
      await emailLimiter.hit("reset", req.body.email);
      const { email, language } = req.body;
      afterAnswer(req.log, "password reset request", () => auth.requestPasswordReset(email, language));
      return reply.code(202).send({ message: "If an account exists for this e-mail, a reset link was sent." });
    },
  );

  app.post(
    "/password-reset/check",
    {
      config: limited,
      schema: {
        tags,
        summary: "Say whether a reset link can still be used (nothing changes)",
        body: verifyEmailBodySchema,
        response: { 200: passwordResetCheckResponseSchema, ...errorResponses(400, 429) },
      },
    },
    async (req) => {
      await auth.checkPasswordResetToken(req.body.token);
      return { valid: true as const };
    },
  );

  app.post(
    "/password-reset/confirm",
    {
      config: limited,
      schema: {
        tags,
        summary: "Set a new password with the token from the reset link",
        body: passwordResetConfirmBodySchema,
        response: { 204: z.null(), ...errorResponses(400, 429) },
      },
    },
    async (req, reply) => {
      await auth.confirmPasswordReset(req.body.token, req.body.password);
      return reply.code(204).send(null);
    },
  );
}

/** Deleting the account or the backend user's data, and recording the backend user. */
function deletionRoutes(app: ZodApp, { opts, limited, guard, tags }: AuthRouteContext): void {
  const { auth } = opts;
  // The destructive calls need the account's password in the body as well as the token: a stolen
  // ID token alone cannot destroy an account or its data.
  const passwordBody = z.object({ password: passwordSchema });

  app.delete(
    "/account",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        summary: "Delete the account: identity, sessions, backend user, stored audio and results (password required)",
        security: [{ bearer: [] }],
        body: passwordBody,
        response: { 204: z.null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const uid = assertUid(req, undefined);
      await auth.confirmPassword(uid, req.body.password);
      await auth.deleteAccount(uid);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/users",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Record the backend user for the token's own uid (idempotent)",
        security: [{ bearer: [] }],
        body: recordUserBodySchema,
        response: { 200: authUserSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (req) => auth.recordBackendUser(assertUid(req, req.body.uid), req.body.email),
  );

  app.delete(
    "/users/:uid",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        summary: "Delete the backend user's data (only the token's own uid; password required)",
        security: [{ bearer: [] }],
        params: z.object({ uid: z.string().max(64) }),
        body: passwordBody,
        response: { 200: z.object({ deleted: z.literal(true) }), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => {
      const uid = assertUid(req, req.params.uid);
      await auth.confirmPassword(uid, req.body.password);
      await auth.deleteBackendUser(uid);
      return { deleted: true as const };
    },
  );
}
