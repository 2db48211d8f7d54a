// Transcription worker: the parent job per recording (QUEUES.transcription), the chunk jobs several
// workers share (QUEUES.transcriptionChunk), and the scheduled audio-retention sweep.
import type http from "node:http";
import { QUEUES } from "@kikitori/shared";
import { connectWorkerBackends, startOpsServerOrExit } from "@kikitori/shared/backends";
import {
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
  promClient,
  publishProgress,
  SPEECH_STATUS_TTL_SECONDS,
  writeSpeechStatus,
} from "@kikitori/shared/server";
import { loadConfig } from "./config.ts";
import { createDiarizationEngine } from "./diarization/index.ts";
import { createSpeechEngine, SpeechModelUnavailableError } from "./engines/index.ts";
import { processChunk } from "./handlers/chunk.ts";
import { sweepRetention } from "./handlers/retention.ts";
import { chunkJobId, processTranscription, reportTranscriptionFailure } from "./handlers/transcribe.ts";
import { speechModelGauge, standByWithoutModel } from "./standby.ts";

const SERVICE = "transcription-worker";
const cfg = configOrExit(() => loadConfig());
const logger = createLogger(SERVICE, cfg.LOG_LEVEL);
installCrashHandlers(logger);

// The engine is chosen and checked before taking any job: a missing model shows now, not on a job.
// Without a model and with TRANSCRIPTION_FALLBACK=none the worker stands by: not ready, no jobs, a metric.
const speech = await createSpeechEngine(cfg, logger).catch(async (err) => {
  if (err instanceof SpeechModelUnavailableError) return standByWithoutModel(SERVICE, cfg, logger, err.reason);
  logger.fatal({ err: (err as Error).message }, "speech engine cannot start");
  process.exit(1);
});
const { engine, chunkConcurrency } = speech;
// Whisper runs in child processes: make sure none outlives this process, whatever way it ends.
process.on("exit", () => void engine.close?.());
engine.check().catch((err) => logger.error({ err: (err as Error).message }, "speech engine not usable"));

const { db, redis, store, checks } = connectWorkerBackends(cfg, logger, cfg.WORKER_CONCURRENCY + chunkConcurrency + 2);
// The gateways read what this engine can do (upload check, notice on the transcription screen).
const sayStatus = () =>
  writeSpeechStatus(redis, cfg.REDIS_PREFIX, speech.status).catch((err) =>
    logger.warn({ err: (err as Error).message }, "could not publish the speech status"),
  );
void sayStatus();
const statusTimer = setInterval(sayStatus, (SPEECH_STATUS_TTL_SECONDS * 1000) / 3);
statusTimer.unref();

// Every queue this process adds to or reads the depth of, from the registry (services/shared/src/jobs.ts).
const jobs = createJobQueues({ connection: redis, prefix: cfg.REDIS_PREFIX, logger });
const metrics = createServiceMetrics(SERVICE, {
  queues: [jobs.queue(QUEUES.transcription), jobs.queue(QUEUES.transcriptionChunk)],
});
speechModelGauge(metrics.registry, false);
const engineRatio = new promClient.Histogram({
  name: "kikitori_engine_seconds_per_audio_second",
  help: "Speech-engine time per second of audio, per chunk",
  labelNames: ["engine"] as const,
  buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 4],
  registers: [metrics.registry],
});

// Who said what: chosen at start too (sherpa when its models are there, else classic; or none).
const diarization = await createDiarizationEngine(cfg, logger);

const deps = {
  db,
  store,
  logger,
  engine,
  diarization,
  tmpDir: cfg.TMP_DIR,
  chunkSeconds: cfg.CHUNK_SECONDS,
  // Parts run side by side: the time left counts the ones already under way.
  parallelParts: chunkConcurrency,
  publish: (envelope: Parameters<typeof publishProgress>[2]) => publishProgress(redis, cfg.REDIS_PREFIX, envelope),
  observeEngine: (engineSeconds: number, audioSeconds: number) => {
    if (audioSeconds > 0) engineRatio.observe({ engine: engine.name }, engineSeconds / audioSeconds);
  },
  addChunkJobs: async (
    parent: import("bullmq").Job,
    chunks: Array<import("@kikitori/shared").TranscriptionChunkJob>,
  ) => {
    await jobs.enqueueBulk(
      QUEUES.transcriptionChunk,
      "chunk",
      chunks.map((c) => ({
        payload: c,
        opts: {
          jobId: chunkJobId(c.jobId, c.index),
          parent: { id: parent.id!, queue: parent.queueQualifiedName },
          failParentOnFailure: true,
          // Long enough to outlive a speech-server restart (CHUNK_ATTEMPTS, CHUNK_BACKOFF_MS).
          attempts: cfg.CHUNK_ATTEMPTS,
          backoff: { type: "exponential", delay: cfg.CHUNK_BACKOFF_MS },
        },
      })),
    );
  },
};

const lock = {
  lockDurationMs: cfg.LOCK_DURATION_MS,
  stalledIntervalMs: cfg.STALLED_INTERVAL_MS,
  maxStalledCount: cfg.MAX_STALLED_COUNT,
};
// One handler per registered job of each queue (the bootstrap refuses to start without one).
const workers = createJobWorkers(
  { connection: redis, prefix: cfg.REDIS_PREFIX, logger, metrics },
  {
    [QUEUES.transcription]: {
      handlers: {
        transcribe: async (job, token) => {
          const outcome = await processTranscription(deps, job, token);
          await handOn(outcome, jobs);
          return outcome;
        },
      },
      concurrency: cfg.WORKER_CONCURRENCY,
      onFinalFailure: (job, err) => reportTranscriptionFailure(deps, job, err),
      ...lock,
    },
    [QUEUES.transcriptionChunk]: {
      handlers: { chunk: (job) => processChunk(deps, job) },
      concurrency: chunkConcurrency,
      onFinalFailure: (job, err) => reportTranscriptionFailure(deps, job, err),
      ...lock,
    },
    [QUEUES.audioRetention]: {
      handlers: { "audio-retention": () => sweepRetention(deps) },
      concurrency: 1,
    },
  },
);
await jobs.schedule(
  QUEUES.audioRetention,
  "audio-retention",
  { id: "audio-retention", everyMs: cfg.RETENTION_SWEEP_EVERY_MS },
  {},
);

let ops: http.Server | undefined;
const lifecycle = onShutdown(
  logger,
  [
    ["stop intake", () => workers.close()],
    ["speech engine", async () => engine.close?.()],
    ["ops server", () => closeHttpServer(ops)],
    ["queues", () => jobs.close()],
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
    checks: { ...checks, engine: () => engine.check() },
    isShuttingDown: lifecycle.isShuttingDown,
  },
  logger,
);
logger.info(
  {
    port: cfg.OPS_PORT,
    engine: engine.name,
    concurrency: cfg.WORKER_CONCURRENCY,
    chunkConcurrency,
    languages: speech.status.languages,
    notice: speech.status.notice?.reason,
  },
  "started",
);
