// Transcription worker: consumes QUEUES.transcription. Wiring only; the pipeline lives in handlers/.
import type http from "node:http";
import { QUEUES } from "@kikitori/shared";
import { createDb, pingDb } from "@kikitori/shared/db";
import {
  closeHttpServer,
  closeRedis,
  configOrExit,
  createLogger,
  createObjectStore,
  createQueue,
  createRedis,
  createServiceMetrics,
  createWorker,
  installCrashHandlers,
  objectStoreCheck,
  onShutdown,
  pingRedis,
  publishProgress,
  startOpsServer,
} from "@kikitori/shared/server";
import { loadConfig } from "./config.ts";
import { createTranscriptionProcessor, reportTranscriptionFailure } from "./handlers/transcribe.ts";

const SERVICE = "transcription-worker";
const cfg = configOrExit(() => loadConfig());
const logger = createLogger(SERVICE, cfg.LOG_LEVEL);
installCrashHandlers(logger);

const db = createDb(cfg.DATABASE_URL, { max: cfg.WORKER_CONCURRENCY + 2 });
const redis = createRedis(cfg.REDIS_URL, "worker");
redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
const store = createObjectStore(cfg);
const s3Check = objectStoreCheck(store);
s3Check().catch((err) => logger.warn({ err: (err as Error).message }, "object store not ready yet"));

const queue = createQueue(QUEUES.transcription, redis, cfg.REDIS_PREFIX);
const metrics = createServiceMetrics(SERVICE, { queues: [queue] });
const deps = {
  db,
  store,
  logger,
  publish: (envelope: Parameters<typeof publishProgress>[2]) => publishProgress(redis, cfg.REDIS_PREFIX, envelope),
};
const worker = createWorker({
  queue: QUEUES.transcription,
  connection: redis,
  prefix: cfg.REDIS_PREFIX,
  concurrency: cfg.WORKER_CONCURRENCY,
  processor: createTranscriptionProcessor(deps),
  onFinalFailure: (job, err) => reportTranscriptionFailure(deps, job, err),
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
    checks: { db: () => pingDb(db), redis: () => pingRedis(redis), s3: s3Check },
    isShuttingDown: lifecycle.isShuttingDown,
  });
} catch (err) {
  logger.fatal({ err }, "cannot start the ops server");
  process.exit(1);
}
logger.info({ port: cfg.OPS_PORT, queue: QUEUES.transcription, concurrency: cfg.WORKER_CONCURRENCY }, "started");
