// Billing service: owns the monthly usage reset (a BullMQ job scheduler on QUEUES.billing consumed
// here). Stripe (plans, webhooks) arrives in a later issue.
import type http from "node:http";
import { type BillingJob, QUEUES } from "@kikitori/shared";
import { createDb, pingDb } from "@kikitori/shared/db";
import {
  closeHttpServer,
  closeRedis,
  configOrExit,
  createLogger,
  createQueue,
  createRedis,
  createServiceMetrics,
  createWorker,
  installCrashHandlers,
  onShutdown,
  pingRedis,
  startOpsServer,
} from "@kikitori/shared/server";
import { loadConfig } from "./config.ts";
import { createMaintenanceProcessor } from "./handlers/maintenance.ts";

const SERVICE = "billing";
const MAINTENANCE_SCHEDULER_ID = "daily-maintenance";

const cfg = configOrExit(() => loadConfig());
const logger = createLogger(SERVICE, cfg.LOG_LEVEL);
installCrashHandlers(logger);

const db = createDb(cfg.DATABASE_URL, { max: cfg.WORKER_CONCURRENCY + 2 });
const redis = createRedis(cfg.REDIS_URL, "worker");
redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));

const queue = createQueue(QUEUES.billing, redis, cfg.REDIS_PREFIX);
const metrics = createServiceMetrics(SERVICE, { queues: [queue] });
const worker = createWorker({
  queue: QUEUES.billing,
  connection: redis,
  prefix: cfg.REDIS_PREFIX,
  concurrency: cfg.WORKER_CONCURRENCY,
  processor: createMaintenanceProcessor({ db, logger, now: () => new Date() }),
  logger,
  metrics,
});

let ops: http.Server | undefined;
const lifecycle = onShutdown(
  logger,
  [
    ["stop intake", () => worker.close()],
    ["ops server", () => closeHttpServer(ops)],
    ["queue", () => queue.close()],
    ["redis", () => closeRedis(redis)],
    ["postgres", () => db.$disconnect()],
  ],
  { timeoutMs: cfg.SHUTDOWN_TIMEOUT_MS },
);

try {
  ops = await startOpsServer({
    port: cfg.OPS_PORT,
    host: cfg.OPS_HOST,
    registry: metrics.registry,
    checks: { db: () => pingDb(db), redis: () => pingRedis(redis) },
    isShuttingDown: lifecycle.isShuttingDown,
  });
} catch (err) {
  logger.fatal({ err }, "cannot start the ops server");
  process.exit(1);
}

// Idempotent: every replica upserts the same scheduler; BullMQ keeps one.
const data: BillingJob = { kind: "daily-maintenance" };
await queue.upsertJobScheduler(
  MAINTENANCE_SCHEDULER_ID,
  { every: cfg.BILLING_SWEEP_EVERY_MS },
  { name: "daily-maintenance", data },
);
logger.info({ port: cfg.OPS_PORT, everyMs: cfg.BILLING_SWEEP_EVERY_MS }, "started");
