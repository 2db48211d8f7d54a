// Test stack for billing: a real gateway (tests/support/gateway.ts) forwarding to an in-process
// billing service on a free port, both on one fresh database, both reading one clock.
import type { PlanName } from "@kikitori/shared";
import { createLogger, createMailer } from "@kikitori/shared/server";
import { insertVerifiedUser } from "../../../tests/support/db.ts";
import { api, freePort, startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { loadGatewayConfig } from "../../gateway/src/config.ts";
import { buildBillingApp } from "../src/app.ts";
import { type BillingConfig, loadConfig } from "../src/config.ts";
import { createPlanNotifier } from "../src/notify.ts";
import { createProvider } from "../src/providers/index.ts";
import { BillingService } from "../src/service.ts";

export interface Clock {
  at: Date;
  now: () => Date;
  set: (iso: string) => void;
}

export function makeClock(iso: string): Clock {
  const c: Clock = {
    at: new Date(iso),
    now: () => new Date(c.at.getTime()),
    set: (s) => {
      c.at = new Date(s);
    },
  };
  return c;
}

export interface BillingStack {
  t: TestGateway;
  url: string;
  billingUrl: string;
  billing: BillingService;
  cfg: BillingConfig;
  clock: Clock;
  close: () => Promise<void>;
}

export async function startBillingStack(opts: {
  clock: Clock;
  env?: Record<string, string>;
  paymentWaitMs?: number;
  /** SMTP server for the plan-change e-mails (none sent without it). */
  smtpUrl?: string;
}): Promise<BillingStack> {
  const port = await freePort();
  const billingUrl = `http://127.0.0.1:${port}`;
  const t = await startTestGateway({ env: { BILLING_URL: billingUrl }, now: opts.clock.now });
  const gwCfg = loadGatewayConfig(t.env);
  const cfg = loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: t.databaseUrl,
    INTERNAL_TOKEN: gwCfg.INTERNAL_TOKEN,
    ...opts.env,
  });
  const logger = createLogger("billing-test", process.env.TEST_LOG_LEVEL ?? "silent");
  const mailer = opts.smtpUrl ? createMailer({ ...cfg, SMTP_URL: opts.smtpUrl }, logger) : null;
  const notifier = mailer
    ? createPlanNotifier({ db: t.db, mailer, logger, appName: cfg.APP_NAME, publicUrl: t.url })
    : undefined;
  const billing = new BillingService({
    db: t.db,
    provider: createProvider(cfg),
    pricing: cfg.pricing,
    seller: cfg.seller,
    quotas: cfg.quotas,
    logger,
    now: opts.clock.now,
    paymentWaitMs: opts.paymentWaitMs ?? 10_000,
    notifier,
  });
  const app = await buildBillingApp({ billing, logger, internalToken: cfg.internalToken, checks: {} });
  await app.listen({ host: "127.0.0.1", port });
  return {
    t,
    url: t.url,
    billingUrl,
    billing,
    cfg,
    clock: opts.clock,
    close: async () => {
      await app.close();
      await mailer?.close();
      await t.close();
    },
  };
}

/** A verified user whose period starts at `periodStart` (default: the clock's now). */
export async function createUser(
  s: BillingStack,
  opts: { plan?: PlanName; language?: string; periodStart?: string } = {},
): Promise<{ uid: string; token: string }> {
  const { uid } = await insertVerifiedUser(s.t.db, {
    plan: opts.plan,
    language: opts.language,
    periodStart: opts.periodStart ? new Date(opts.periodStart) : s.clock.now(),
  });
  const token = await s.t.gw.signer.sign({ sub: uid, email: `${uid}@example.com`, email_verified: true });
  return { uid, token };
}

/** Saves a card with the embedded provider (a test card number) and returns its payment-method id. */
export async function addLocalCard(s: BillingStack, token: string, number: string): Promise<string> {
  const r = await api(s.url, "POST", "/api/billing/local/payment-methods", {
    token,
    body: { number, expMonth: 12, expYear: 2031, cvc: "123" },
  });
  if (r.status !== 200) throw new Error(`saving card ${number} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.id as string;
}

/** POST /api/subscriptions/create-or-update-subscription through the gateway. */
export const changePlan = (s: BillingStack, token: string, body: Record<string, unknown>) =>
  api(s.url, "POST", "/api/subscriptions/create-or-update-subscription", { token, body });
