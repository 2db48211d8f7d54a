// Correction worker: consumes QUEUES.correction and QUEUES.text (summaries, titles and headings).
// Wiring only; the pipelines live in handlers/.
import type http from "node:http";
import { QUEUES } from "@kikitori/shared";
import { connectWorkerBackends, startOpsServerOrExit } from "@kikitori/shared/backends";
import {
  closeHttpServer,
  closeRedis,
  configOrExit,
  createLogger,
  createQueue,
  createServiceMetrics,
  createWorker,
  installCrashHandlers,
  onShutdown,
  publishProgress,
} from "@kikitori/shared/server";
import { loadConfig } from "./config.ts";
import { createCorrectionEngine } from "./correction/index.ts";
import { processCorrection, reportCorrectionFailure } from "./handlers/correct.ts";
import { createTextProcessor } from "./handlers/text.ts";
import { createTextEngine } from "./text/create.ts";

const SERVICE = "correction-worker";
const cfg = configOrExit(() => loadConfig());
const logger = createLogger(SERVICE, cfg.LOG_LEVEL);
installCrashHandlers(logger);

const { db, redis, store, checks } = connectWorkerBackends(
  cfg,
  logger,
  cfg.WORKER_CONCURRENCY + cfg.TEXT_WORKER_CONCURRENCY + 2,
);

const queue = createQueue(QUEUES.correction, redis, cfg.REDIS_PREFIX);
const textQueue = createQueue(QUEUES.text, redis, cfg.REDIS_PREFIX);
const metrics = createServiceMetrics(SERVICE, { queues: [queue, textQueue] });
const engine = createCorrectionEngine(cfg);
const deps = {
  db,
  store,
  logger,
  engine,
  publish: (envelope: Parameters<typeof publishProgress>[2]) => publishProgress(redis, cfg.REDIS_PREFIX, envelope),
};
const worker = createWorker({
  queue: QUEUES.correction,
  connection: redis,
  prefix: cfg.REDIS_PREFIX,
  concurrency: cfg.WORKER_CONCURRENCY,
  processor: (job) => processCorrection(deps, job),
  onFinalFailure: (job, err) => reportCorrectionFailure(deps, job, err),
  logger,
  metrics,
  lockDurationMs: cfg.LOCK_DURATION_MS,
  stalledIntervalMs: cfg.STALLED_INTERVAL_MS,
  maxStalledCount: cfg.MAX_STALLED_COUNT,
});

const textEngine = createTextEngine(cfg);
const textWorker = createWorker({
  queue: QUEUES.text,
  connection: redis,
  prefix: cfg.REDIS_PREFIX,
  concurrency: cfg.TEXT_WORKER_CONCURRENCY,
  processor: createTextProcessor({ db, store, logger, engine: textEngine }),
  logger,
  metrics,
  lockDurationMs: cfg.LOCK_DURATION_MS,
  stalledIntervalMs: cfg.STALLED_INTERVAL_MS,
  maxStalledCount: cfg.MAX_STALLED_COUNT,
});

let ops: http.Server | undefined;
const lifecycle = onShutdown(
  logger,
  [
    ["stop intake", () => Promise.all([worker.close(), textWorker.close()])],
    ["ops server", () => closeHttpServer(ops)],
    ["queue", () => Promise.all([queue.close(), textQueue.close()])],
    ["redis", () => closeRedis(redis)],
    ["postgres", () => db.$disconnect()],
  ],
  { timeoutMs: cfg.SHUTDOWN_TIMEOUT_MS },
);

ops = await startOpsServerOrExit(
  {
    port: cfg.OPS_PORT,
    host: cfg.OPS_HOST,
    registry: metrics.registry,
    checks,
    isShuttingDown: lifecycle.isShuttingDown,
  },
  logger,
);
logger.info(
  {
    port: cfg.OPS_PORT,
    queue: QUEUES.correction,
    engine: engine.name,
    concurrency: cfg.WORKER_CONCURRENCY,
    textQueue: QUEUES.text,
    textEngine: textEngine.name,
    textConcurrency: cfg.TEXT_WORKER_CONCURRENCY,
  },
  "started",
);
