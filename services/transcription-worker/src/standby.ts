// A transcription worker that cannot transcribe: its Whisper model is missing or fails its checksum and
// TRANSCRIPTION_FALLBACK=none forbids the rough pocketsphinx engine. It takes no job (no BullMQ worker
// is created, so nothing is pulled off the queues), answers /healthz (alive: restarting would not bring
// the model) and fails /readyz with the reason, and exports kikitori_speech_model_missing 1 so the
// alert KikitoriSpeechModelMissing fires. SIGTERM ends it like any other worker.
import { startOpsServerOrExit } from "@kikitori/shared/backends";
import { closeHttpServer, createServiceMetrics, type Logger, onShutdown, promClient } from "@kikitori/shared/server";
import type { TranscriptionWorkerConfig } from "./config.ts";

/** `kikitori_speech_model_missing` on `registry`: 1 while the worker runs without its model, else 0. */
export function speechModelGauge(registry: promClient.Registry, missing: boolean): promClient.Gauge {
  const gauge = new promClient.Gauge({
    name: "kikitori_speech_model_missing",
    help: "1 when this transcription worker has no usable speech model and takes no jobs (TRANSCRIPTION_FALLBACK=none)",
    registers: [registry],
  });
  gauge.set(missing ? 1 : 0);
  return gauge;
}

/** Serves the ops endpoints (not ready, metric 1) until SIGTERM; never takes a job. Does not return. */
export async function standByWithoutModel(
  service: string,
  cfg: TranscriptionWorkerConfig,
  logger: Logger,
  reason: string,
): Promise<never> {
  logger.error(
    { reason, setting: "TRANSCRIPTION_FALLBACK" },
    "SPEECH MODEL MISSING: this worker takes no jobs until its Whisper model is in place (TRANSCRIPTION_FALLBACK=none forbids the pocketsphinx fallback); run the model pull (npm run models -- pull) and restart it",
  );
  const metrics = createServiceMetrics(service);
  speechModelGauge(metrics.registry, true);
  let ops: import("node:http").Server | undefined;
  const lifecycle = onShutdown(logger, [["ops server", () => closeHttpServer(ops)]], {
    timeoutMs: cfg.SHUTDOWN_TIMEOUT_MS,
  });
  ops = await startOpsServerOrExit(
    {
      port: cfg.OPS_PORT,
      host: cfg.OPS_HOST,
      registry: metrics.registry,
      checks: {
        engine: async () => {
          throw new Error(`no speech model: ${reason}`);
        },
      },
      isShuttingDown: lifecycle.isShuttingDown,
    },
    logger,
  );
  logger.info({ port: cfg.OPS_PORT }, "standing by without a speech model");
  // The ops server keeps the process alive; the SIGTERM handler ends it.
  return new Promise<never>(() => {});
}
