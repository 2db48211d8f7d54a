import { z } from "zod";
import { SUPPORTED_LANGUAGES } from "./languages.ts";

export const EMAIL_MAX = 254;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

export const languageSchema = z.enum(SUPPORTED_LANGUAGES);
export const emailSchema = z
  .string()
  .trim()
  .min(1)
  .max(EMAIL_MAX)
  .pipe(z.email())
  .transform((e) => e.toLowerCase());
/** Login takes any non-empty string up to the maximum, so an old account never gets a format error. */
export const passwordSchema = z.string().min(1).max(PASSWORD_MAX);
export const newPasswordSchema = z.string().min(PASSWORD_MIN).max(PASSWORD_MAX);
export const tokenStringSchema = z.string().min(16).max(512);

export const authUserSchema = z.object({ uid: z.string(), email: z.string(), emailVerified: z.boolean() });
export type AuthUser = z.infer<typeof authUserSchema>;

export const registerBodySchema = z.object({
  email: emailSchema,
  password: newPasswordSchema,
  language: languageSchema.default("en"),
});
export const verifyEmailBodySchema = z.object({ token: tokenStringSchema });
export const loginBodySchema = z.object({ email: emailSchema, password: passwordSchema });
export const refreshBodySchema = z.object({ refreshToken: tokenStringSchema });
export const logoutBodySchema = refreshBodySchema;
export const resendVerificationBodySchema = z.object({ email: emailSchema, language: languageSchema.default("en") });
export const passwordResetBodySchema = z.object({ email: emailSchema, language: languageSchema.default("en") });
export const passwordResetConfirmBodySchema = z.object({ token: tokenStringSchema, password: newPasswordSchema });
export const recordUserBodySchema = z.object({ uid: z.string().uuid(), email: emailSchema });

export const sessionSchema = z.object({
  idToken: z.string(),
  refreshToken: z.string(),
  /** Seconds until idToken expires. */
  expiresIn: z.number().int(),
  user: authUserSchema,
});
export type Session = z.infer<typeof sessionSchema>;

/** POST /api/auth/verify-email. */
export const verifyEmailResponseSchema = z.object({ emailVerified: z.literal(true) });
/** 202 answers that only say what happens next (resend-verification, password-reset). */
export const acceptedResponseSchema = z.object({ message: z.string() });
/** POST /api/auth/password-reset/check: the token is still good. */
export const passwordResetCheckResponseSchema = z.object({ valid: z.literal(true) });

/** Spec section 9: identity-session timings used by the web app. */
export const SESSION_TIMINGS = {
  refreshBeforeExpiryMs: 5 * 60_000,
  treatExpiredEarlyMs: 30_000,
  retryInitialMs: 30_000,
  retryMaxMs: 16 * 60_000,
  networkTimeoutDesktopMs: 30_000,
  networkTimeoutMobileMs: 60_000,
} as const;

/** Backoff for refresh retries: 30 s, 60 s, 120 s, … capped at 16 minutes. */
export function refreshRetryDelay(attempt: number): number {
  return Math.min(SESSION_TIMINGS.retryInitialMs * 2 ** Math.max(0, attempt), SESSION_TIMINGS.retryMaxMs);
}
