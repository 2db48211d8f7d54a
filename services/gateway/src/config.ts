import os from "node:os";
import {
  commonEnv,
  deriveInternalToken,
  envBool,
  envInt,
  envOptionalUrl,
  mailEnv,
  parseConfig,
  quotasFromConfig,
  readJwtSecret,
  secretFileEnv,
} from "@kikitori/shared/server";
import { z } from "zod";

export const gatewayEnv = z
  .object({
    ...commonEnv,
    HOST: z.string().default("0.0.0.0"),
    PORT: envInt(3000, 0, 65535),
    /**
     * Ops server: /metrics and the detailed /readyz (every check named). Kept off the public port, which
     * only answers /healthz and a bare /readyz (ready or not).
     */
    OPS_HOST: z.string().default("0.0.0.0"),
    OPS_PORT: envInt(3100, 0, 65535),
    /**
     * Longest a graceful shutdown may take: requests in flight finish first, so keep it above
     * TEXT_JOB_TIMEOUT_MS and BILLING_TIMEOUT_MS (and the pod's grace period above it plus preStop).
     */
    SHUTDOWN_TIMEOUT_MS: envInt(150_000, 1_000),
    /** HS256 secret for ID tokens; at least 32 characters. `npm start` writes one to var/jwt-secret. */
    JWT_SECRET: z.string().optional(),
    JWT_SECRET_FILE: z.string().optional(),
    ID_TOKEN_TTL_SECONDS: envInt(3600, 60, 86_400),
    REFRESH_TOKEN_TTL_DAYS: envInt(30, 1, 365),
    VERIFY_TOKEN_TTL_HOURS: envInt(48, 1, 720),
    RESET_TOKEN_TTL_MINUTES: envInt(60, 5, 1440),
    ...mailEnv,
    /** Directory of the built web app; served at / with an SPA fallback. */
    WEB_DIST_DIR: z.string().default("web/dist"),
    HOW_TO_USE_URL: envOptionalUrl,
    CONTACT_URL: envOptionalUrl,
    TERMS_URL: envOptionalUrl,
    PRIVACY_URL: envOptionalUrl,
    /** Per-IP limit for login/register/password-reset calls, per minute. */
    RATE_LIMIT_AUTH_PER_IP_PER_MINUTE: envInt(30, 1),
    /**
     * Per-IP limit for opening share links (GET /api/shared/{token}), per minute; their signed audio
     * URL allows five times as many (a player asks for byte ranges as it seeks).
     */
    RATE_LIMIT_SHARED_PER_IP_PER_MINUTE: envInt(60, 1),
    /** Per-e-mail limit for login/register/password-reset calls, per 15 minutes. */
    RATE_LIMIT_AUTH_PER_EMAIL_PER_15_MIN: envInt(10, 1),
    /**
     * Login lock-out resistance (README "Security"): wrong passwords are counted per account and per
     * source address. A source with this many failures in 15 minutes is refused (429) for the rest of
     * the window, on every account; so is one source on one account after LOGIN_FAILURES_PER_ACCOUNT_SOURCE.
     * Failures for an account from everywhere only slow its logins down (LOGIN_SLOWDOWN_*), they never
     * refuse the right password from another source.
     */
    LOGIN_FAILURES_PER_SOURCE: envInt(20, 1),
    LOGIN_FAILURES_PER_ACCOUNT_SOURCE: envInt(10, 1),
    /** Failures for one account (any source, 15 minutes) before its logins are slowed down. */
    LOGIN_SLOWDOWN_AFTER: envInt(5, 1),
    /** The longest added wait per login attempt of a slowed-down account. */
    LOGIN_SLOWDOWN_MAX_MS: envInt(2_000, 0, 30_000),
    TRUST_PROXY: envBool(false),
    /** An upload whose body sends nothing for this long is answered 408 REQUEST_TIMEOUT. */
    UPLOAD_IDLE_TIMEOUT_MS: envInt(30_000, 100),
    /** The longest an upload's body may take to arrive (408 REQUEST_TIMEOUT after). */
    UPLOAD_TIMEOUT_MS: envInt(600_000, 500),
    /** Uploads one user may have in flight at once, across gateways (429 beyond). */
    UPLOADS_IN_FLIGHT_PER_USER: envInt(2, 1, 100),
    /**
     * An accepted recording not yet in the store whose hand-off marker has been untouched this long
     * (its gateway stopped or died; a running one touches it every 10 s) is taken over by a gateway on
     * the same UPLOAD_TMP_DIR.
     */
    UPLOAD_HANDOFF_STALE_MS: envInt(60_000, 0),
    /** Uploads checked (ffprobe + decode) at once on one gateway; the rest wait their turn. Default: CPUs. */
    DECODES_PER_GATEWAY: envInt(Math.max(1, os.availableParallelism()), 1, 256),
    /** Open WebSockets per user on one gateway; a new one beyond closes with 4429. */
    WS_MAX_SOCKETS_PER_USER: envInt(10, 1, 1000),
    /** How long a summary or title call waits for its worker job before answering 504 GENERATION_TIMEOUT. */
    TEXT_JOB_TIMEOUT_MS: envInt(120_000, 1_000),
    /** Days an uploaded recording is kept; afterwards the audio is deleted and GET /api/audio answers 410. */
    AUDIO_RETENTION_DAYS: envInt(7, 1, 3650),
    /** Where uploads are spooled while they are checked (default: the OS temp dir). */
    UPLOAD_TMP_DIR: z.string().default(os.tmpdir()),
    /** The billing service's internal API (plans, plan changes, payments, webhooks). */
    BILLING_URL: z.url().default("http://127.0.0.1:3103"),
    /** How long a forwarded billing call may take (a payment talks to the card provider). */
    BILLING_TIMEOUT_MS: envInt(45_000, 1_000),
    /** Shared secret for gateway → billing calls; default: derived from the JWT secret. */
    INTERNAL_TOKEN: z.string().optional(),
    ...secretFileEnv("INTERNAL_TOKEN"),
  })
  .transform((c, ctx) => {
    const read = readJwtSecret(c);
    if (read.error) {
      const path = read.error.startsWith("cannot read") ? "JWT_SECRET_FILE" : "JWT_SECRET";
      ctx.addIssue({ code: "custom", path: [path], message: read.error });
      return z.NEVER;
    }
    let secret = read.secret;
    if (!secret && c.NODE_ENV === "test") secret = "test-secret-test-secret-test-secret-0000";
    if (!secret || secret.length < 32) {
      ctx.addIssue({
        code: "custom",
        path: ["JWT_SECRET"],
        message: "required, at least 32 characters (or JWT_SECRET_FILE pointing at a file holding it)",
      });
      return z.NEVER;
    }
    const pub = c.PUBLIC_URL.replace(/\/$/, "");
    return {
      ...c,
      JWT_SECRET: secret,
      PUBLIC_URL: pub,
      HOW_TO_USE_URL: c.HOW_TO_USE_URL ?? `${pub}/how-to-use.html`,
      CONTACT_URL: c.CONTACT_URL ?? "mailto:support@kikitori.local",
      TERMS_URL: c.TERMS_URL ?? `${pub}/terms.html`,
      PRIVACY_URL: c.PRIVACY_URL ?? `${pub}/privacy.html`,
      quotas: quotasFromConfig(c),
      BILLING_URL: c.BILLING_URL.replace(/\/$/, ""),
      INTERNAL_TOKEN: c.INTERNAL_TOKEN || deriveInternalToken(secret),
    };
  });

export type GatewayConfig = z.infer<typeof gatewayEnv>;

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return parseConfig("gateway", gatewayEnv, env);
}
