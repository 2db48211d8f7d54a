// Billing service: plans, subscriptions, payments (card-provider port: local or Stripe), the
// internal API the gateway forwards to, and the maintenance job scheduler on QUEUES.billing
// (usage resets, scheduled plan switches, renewals). docs/decisions/0006-billing.md.
import { type BillingJob, QUEUES } from "@kikitori/shared";
import { createDb, pingDb } from "@kikitori/shared/db";
import {
  closeRedis,
  configOrExit,
  createLogger,
  createMailer,
  createQueue,
  createRedis,
  createServiceMetrics,
  createWorker,
  installCrashHandlers,
  onShutdown,
  pingRedis,
  promClient,
} from "@kikitori/shared/server";
import { buildBillingApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { createMaintenanceProcessor } from "./handlers/maintenance.ts";
import { createPlanNotifier } from "./notify.ts";
import { createProvider } from "./providers/index.ts";
import { BillingService } from "./service.ts";

const SERVICE = "billing";
const MAINTENANCE_SCHEDULER_ID = "daily-maintenance";

const cfg = configOrExit(() => loadConfig());
const logger = createLogger(SERVICE, cfg.LOG_LEVEL);
installCrashHandlers(logger);
if (!cfg.internalToken && cfg.NODE_ENV === "production") {
  logger.warn("no INTERNAL_TOKEN (nor JWT_SECRET to derive it): the internal API trusts its network");
}

const db = createDb(cfg.DATABASE_URL, { max: cfg.WORKER_CONCURRENCY + 8 });
const redis = createRedis(cfg.REDIS_URL, "worker");
redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));

const queue = createQueue(QUEUES.billing, redis, cfg.REDIS_PREFIX);
const metrics = createServiceMetrics(SERVICE, { queues: [queue] });
const payments = new promClient.Counter({
  name: "kikitori_payments_total",
  help: "Payment outcomes by kind (upgrade, renewal) and outcome",
  labelNames: ["kind", "outcome"] as const,
  registers: [metrics.registry],
});

const mailer = createMailer(cfg, logger);
const now = () => new Date();
const billing = new BillingService({
  db,
  provider: createProvider(cfg),
  pricing: cfg.pricing,
  quotas: cfg.quotas,
  logger,
  now,
  paymentWaitMs: cfg.PAYMENT_WAIT_MS,
  onPayment: (kind, outcome) => payments.inc({ kind, outcome }),
  notifier: createPlanNotifier({ db, mailer, logger, appName: cfg.APP_NAME, publicUrl: cfg.PUBLIC_URL }),
});

const worker = createWorker({
  queue: QUEUES.billing,
  connection: redis,
  prefix: cfg.REDIS_PREFIX,
  concurrency: cfg.WORKER_CONCURRENCY,
  processor: createMaintenanceProcessor({ db, billing, logger, now }),
  logger,
  metrics,
});

let app: Awaited<ReturnType<typeof buildBillingApp>> | undefined;
const lifecycle = onShutdown(
  logger,
  [
    ["stop intake", () => worker.close()],
    ["http server", () => app?.close()],
    ["queue", () => queue.close()],
    ["mailer", () => mailer.close()],
    ["redis", () => closeRedis(redis)],
    ["postgres", () => db.$disconnect()],
  ],
  { timeoutMs: cfg.SHUTDOWN_TIMEOUT_MS },
);

try {
  app = await buildBillingApp({
    billing,
    logger,
    internalToken: cfg.internalToken,
    checks: { db: () => pingDb(db), redis: () => pingRedis(redis) },
    registry: metrics.registry,
    isShuttingDown: lifecycle.isShuttingDown,
  });
  await app.listen({ port: cfg.OPS_PORT, host: cfg.OPS_HOST });
} catch (err) {
  logger.fatal({ err }, "cannot start the HTTP server");
  process.exit(1);
}

// Idempotent: every replica upserts the same scheduler; BullMQ keeps one.
const data: BillingJob = { kind: "daily-maintenance" };
await queue.upsertJobScheduler(
  MAINTENANCE_SCHEDULER_ID,
  { every: cfg.BILLING_SWEEP_EVERY_MS },
  { name: "daily-maintenance", data },
);
logger.info({ port: cfg.OPS_PORT, everyMs: cfg.BILLING_SWEEP_EVERY_MS, provider: cfg.PAYMENT_PROVIDER }, "started");
