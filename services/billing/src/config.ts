import {
  commonEnv,
  deriveInternalToken,
  envInt,
  mailEnv,
  parseConfig,
  quotasFromConfig,
  readJwtSecret,
  secretFileEnv,
} from "@kikitori/shared/server";
import { z } from "zod";
import {
  defaultPriceSettings,
  type Pricing,
  parseLanguageCurrency,
  priceTableFrom,
  requiredPriceSettings,
} from "./pricing.ts";

const optional = z
  .string()
  .optional()
  .transform((v) => (v ? v : undefined));

/**
 * Default monthly prices (major units) from the plan catalogue (@kikitori/shared plans.ts), as
 * settings; PRICE_<CURRENCY>_<PLAN> adds or overrides any currency.
 */
export const DEFAULT_PRICES: Record<string, string> = defaultPriceSettings();

export const billingEnv = z
  .looseObject({
    ...commonEnv,
    ...mailEnv,
    /** Interface and port of the billing HTTP server: the internal API, /healthz, /readyz, /metrics. */
    OPS_HOST: z.string().default("0.0.0.0"),
    OPS_PORT: envInt(3103, 0, 65535),
    /** Jobs processed at once on the billing queue. */
    WORKER_CONCURRENCY: envInt(1, 1, 16),
    /** How often the maintenance sweep (resets, scheduled plan changes, renewals) runs; default hourly. */
    BILLING_SWEEP_EVERY_MS: envInt(3_600_000, 1_000),
    /**
     * Longest a graceful shutdown may take: internal API calls in flight finish first, so keep it above
     * the gateway's BILLING_TIMEOUT_MS (45 s), the longest call it forwards.
     */
    SHUTDOWN_TIMEOUT_MS: envInt(60_000, 1_000),
    /** Card provider: `local` (embedded, behaves like Stripe's test cards) or `stripe`. */
    PAYMENT_PROVIDER: z.enum(["local", "stripe"]).default("local"),
    /**
     * The `local` provider takes no money: under NODE_ENV=production billing refuses to start with it
     * unless this is set to true on purpose (a staging cluster without card keys).
     */
    ALLOW_TEST_PAYMENTS: z.enum(["true", "false"]).default("false"),
    STRIPE_SECRET_KEY: optional,
    STRIPE_PUBLISHABLE_KEY: optional,
    STRIPE_WEBHOOK_SECRET: optional,
    /** Only for tests against a Stripe stand-in: API host, port and protocol. */
    STRIPE_API_HOST: optional,
    STRIPE_API_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    STRIPE_API_PROTOCOL: z.enum(["http", "https"]).optional(),
    /** Accepted age of a webhook signature's timestamp. */
    STRIPE_WEBHOOK_TOLERANCE_SECONDS: envInt(300, 1, 86_400),
    /** Interface language → currency; other languages pay in DEFAULT_CURRENCY. */
    LANGUAGE_CURRENCY: z.string().default("ja:JPY"),
    DEFAULT_CURRENCY: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .default("USD"),
    /** The seller on receipts: name (default APP_NAME), address lines separated by "|", e-mail, tax number. */
    BILLING_SELLER_NAME: optional,
    BILLING_SELLER_ADDRESS: z.string().default(""),
    BILLING_SELLER_EMAIL: optional,
    BILLING_SELLER_TAX_ID: optional,
    /** Tax included in every price, in percent (0: none charged), and what receipts call it. */
    BILLING_TAX_RATE: z.coerce.number().min(0).max(100).default(0),
    BILLING_TAX_NAME: z.string().min(1).max(40).default("Tax"),
    /** How long a request waits for a concurrent identical payment to finish before 409 PAYMENT_IN_PROGRESS. */
    PAYMENT_WAIT_MS: envInt(15_000, 0, 120_000),
    /** Shared secret the gateway sends in x-internal-token (default: derived from JWT_SECRET; see ADR 0006). */
    INTERNAL_TOKEN: optional,
    JWT_SECRET: optional,
    JWT_SECRET_FILE: optional,
    ...secretFileEnv("INTERNAL_TOKEN", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"),
  })
  .transform((c, ctx) => {
    let pricing: Pricing;
    try {
      const prices = priceTableFrom(c, DEFAULT_PRICES);
      const languageCurrency = parseLanguageCurrency(c.LANGUAGE_CURRENCY);
      for (const cur of [c.DEFAULT_CURRENCY, ...Object.values(languageCurrency)]) {
        if (!prices[cur]) throw new Error(`no prices for ${cur}: set ${requiredPriceSettings(cur)}`);
      }
      pricing = { prices, languageCurrency, defaultCurrency: c.DEFAULT_CURRENCY };
    } catch (err) {
      ctx.addIssue({ code: "custom", path: ["PRICE_*"], message: (err as Error).message });
      return z.NEVER;
    }
    if (c.PAYMENT_PROVIDER === "local" && c.NODE_ENV === "production" && c.ALLOW_TEST_PAYMENTS !== "true") {
      ctx.addIssue({
        code: "custom",
        path: ["PAYMENT_PROVIDER"],
        message:
          "the local test-card provider takes no money and is refused in production: set PAYMENT_PROVIDER=stripe with the STRIPE_* keys, or ALLOW_TEST_PAYMENTS=true on purpose",
      });
    }
    if (c.PAYMENT_PROVIDER === "stripe") {
      for (const key of ["STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET"] as const) {
        if (!c[key]) ctx.addIssue({ code: "custom", path: [key], message: "required with PAYMENT_PROVIDER=stripe" });
      }
    }
    let internalToken = c.INTERNAL_TOKEN;
    if (!internalToken) {
      const { secret, error } = readJwtSecret(c);
      const path = error?.startsWith("cannot read") ? "JWT_SECRET_FILE" : "JWT_SECRET";
      if (error) ctx.addIssue({ code: "custom", path: [path], message: error });
      if (secret) internalToken = deriveInternalToken(secret);
    }
    return {
      NODE_ENV: c.NODE_ENV,
      LOG_LEVEL: c.LOG_LEVEL,
      APP_NAME: c.APP_NAME,
      PUBLIC_URL: c.PUBLIC_URL.replace(/\/$/, ""),
      SMTP_URL: c.SMTP_URL,
      MAIL_FROM: c.MAIL_FROM,
      MAIL_DIR: c.MAIL_DIR,
      DATABASE_URL: c.DATABASE_URL,
      REDIS_URL: c.REDIS_URL,
      REDIS_PREFIX: c.REDIS_PREFIX,
      OPS_HOST: c.OPS_HOST,
      OPS_PORT: c.OPS_PORT,
      WORKER_CONCURRENCY: c.WORKER_CONCURRENCY,
      BILLING_SWEEP_EVERY_MS: c.BILLING_SWEEP_EVERY_MS,
      SHUTDOWN_TIMEOUT_MS: c.SHUTDOWN_TIMEOUT_MS,
      PAYMENT_PROVIDER: c.PAYMENT_PROVIDER,
      /** Signs the local provider's payment-method ids, so only ids it issued are accepted. */
      localPaymentKey: internalToken,
      PAYMENT_WAIT_MS: c.PAYMENT_WAIT_MS,
      stripe: {
        secretKey: c.STRIPE_SECRET_KEY ?? "",
        publishableKey: c.STRIPE_PUBLISHABLE_KEY ?? "",
        webhookSecret: c.STRIPE_WEBHOOK_SECRET ?? "",
        host: c.STRIPE_API_HOST,
        port: c.STRIPE_API_PORT,
        protocol: c.STRIPE_API_PROTOCOL,
        toleranceSeconds: c.STRIPE_WEBHOOK_TOLERANCE_SECONDS,
      },
      pricing,
      seller: {
        name: c.BILLING_SELLER_NAME ?? c.APP_NAME,
        address: c.BILLING_SELLER_ADDRESS.split("|")
          .map((l) => l.trim())
          .filter(Boolean),
        email: c.BILLING_SELLER_EMAIL ?? c.MAIL_FROM.replace(/^.*<([^>]+)>.*$/, "$1"),
        taxId: c.BILLING_SELLER_TAX_ID,
        taxRate: c.BILLING_TAX_RATE,
        taxName: c.BILLING_TAX_NAME,
      },
      quotas: quotasFromConfig(c),
      /** undefined: the internal API trusts its network (no token configured anywhere). */
      internalToken,
    };
  });

export type BillingConfig = z.infer<typeof billingEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): BillingConfig {
  return parseConfig("billing", billingEnv, env);
}
