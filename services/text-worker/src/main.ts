// Text worker: consumes QUEUES.correction (corrections, interview sync) and QUEUES.text (summaries,
// titles and headings).
// Wiring only; the pipelines live in handlers/.
import type http from "node:http";
import { QUEUES } from "@kikitori/shared";
import { connectWorkerBackends, startOpsServerOrExit } from "@kikitori/shared/backends";
import {
  cancelAfterMs,
  closeHttpServer,
  closeRedis,
  configOrExit,
  createJobQueues,
  createJobWorkers,
  createLogger,
  createServiceMetrics,
  handOn,
  installCrashHandlers,
  onShutdown,
  publishProgress,
} from "@kikitori/shared/server";
import { loadConfig } from "./config.ts";
import { createCorrectionEngine } from "./correction/index.ts";
import { processCorrection, reportCorrectionFailure } from "./handlers/correct.ts";
import { processInterviewSync } from "./handlers/sync-interview.ts";
import { createTextProcessor } from "./handlers/text.ts";
import { createTextEngine } from "./text/index.ts";

const SERVICE = "text-worker";
const cfg = configOrExit(() => loadConfig());
const logger = createLogger(SERVICE, cfg.LOG_LEVEL);
installCrashHandlers(logger);

const { db, redis, store, checks } = connectWorkerBackends(
  cfg,
  logger,
  cfg.WORKER_CONCURRENCY + cfg.TEXT_WORKER_CONCURRENCY + 2,
);

// The queues this process consumes, from the registry (services/shared/src/jobs.ts): for their depth gauges.
const jobs = createJobQueues({ connection: redis, prefix: cfg.REDIS_PREFIX, logger });
const metrics = createServiceMetrics(SERVICE, { queues: [jobs.queue(QUEUES.correction), jobs.queue(QUEUES.text)] });
const engine = createCorrectionEngine(cfg);
const deps = {
  db,
  store,
  logger,
  engine,
  publish: (envelope: Parameters<typeof publishProgress>[2]) => publishProgress(redis, cfg.REDIS_PREFIX, envelope),
};
const textEngine = createTextEngine(cfg);
const processText = createTextProcessor({ db, store, logger, engine: textEngine });
const lock = {
  lockDurationMs: cfg.LOCK_DURATION_MS,
  stalledIntervalMs: cfg.STALLED_INTERVAL_MS,
  maxStalledCount: cfg.MAX_STALLED_COUNT,
};
// One handler per registered job of each queue (the bootstrap refuses to start without one).
const workers = createJobWorkers(
  { connection: redis, prefix: cfg.REDIS_PREFIX, logger, metrics },
  {
    [QUEUES.correction]: {
      handlers: {
        correct: async (job, token, control) => {
          const outcome = await processCorrection(deps, job, { token, control });
          await handOn(outcome, jobs);
          return outcome;
        },
        "sync-interview": (job) => processInterviewSync(deps, job),
      },
      concurrency: cfg.WORKER_CONCURRENCY,
      onFinalFailure: (job, err) => reportCorrectionFailure(deps, job, err),
      ...lock,
    },
    [QUEUES.text]: {
      handlers: { summary: processText, titles: processText },
      concurrency: cfg.TEXT_WORKER_CONCURRENCY,
      ...lock,
    },
  },
);

let ops: http.Server | undefined;
const lifecycle = onShutdown(
  logger,
  [
    // A running correction stops at its next section boundary and goes back to the queue; one still
    // in its section when the shutdown's time is nearly up is cancelled and goes back as well.
    ["stop intake", ({ remainingMs }) => workers.close({ cancelAfterMs: cancelAfterMs(remainingMs()) })],
    ["ops server", () => closeHttpServer(ops)],
    ["queue", () => jobs.close()],
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
