// Billing service: plans, subscriptions, payments (card-provider port: local or Stripe), the
// internal API the gateway forwards to, and the maintenance job scheduler on QUEUES.billing
// (usage resets, scheduled plan switches, renewals). docs/decisions/0006-billing.md.
import { QUEUES } from "@kikitori/shared";
import { createDb, pingDb } from "@kikitori/shared/db";
import {
  closeRedis,
  configOrExit,
  createJobQueues,
  createJobWorkers,
  createLogger,
  createMailer,
  createRedis,
  createServiceMetrics,
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

// The billing queue, from the registry (services/shared/src/jobs.ts): scheduler and depth gauge.
const jobs = createJobQueues({ connection: redis, prefix: cfg.REDIS_PREFIX, logger });
const metrics = createServiceMetrics(SERVICE, { queues: [jobs.queue(QUEUES.billing)] });
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
  seller: cfg.seller,
  quotas: cfg.quotas,
  logger,
  now,
  paymentWaitMs: cfg.PAYMENT_WAIT_MS,
  onPayment: (kind, outcome) => payments.inc({ kind, outcome }),
  notifier: createPlanNotifier({ db, mailer, logger, appName: cfg.APP_NAME, publicUrl: cfg.PUBLIC_URL }),
});

const workers = createJobWorkers(
  { connection: redis, prefix: cfg.REDIS_PREFIX, logger, metrics },
  {
    [QUEUES.billing]: {
      handlers: { "daily-maintenance": createMaintenanceProcessor({ db, billing, logger, now }) },
      concurrency: cfg.WORKER_CONCURRENCY,
    },
  },
);

let app: Awaited<ReturnType<typeof buildBillingApp>> | undefined;
const lifecycle = onShutdown(
  logger,
  [
    ["stop intake", () => workers.close()],
    ["http server", () => app?.close()],
    ["queue", () => jobs.close()],
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
await jobs.schedule(
  QUEUES.billing,
  "daily-maintenance",
  { id: MAINTENANCE_SCHEDULER_ID, everyMs: cfg.BILLING_SWEEP_EVERY_MS },
  { kind: "daily-maintenance" },
);
logger.info({ port: cfg.OPS_PORT, everyMs: cfg.BILLING_SWEEP_EVERY_MS, provider: cfg.PAYMENT_PROVIDER }, "started");
