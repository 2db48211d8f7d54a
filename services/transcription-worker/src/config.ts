import { commonEnv, envInt, parseConfig } from "@kikitori/shared/server";
import { z } from "zod";

export const transcriptionWorkerEnv = z.object({
  ...commonEnv,
  /** Port and interface of the ops server (/healthz, /readyz, /metrics). */
  OPS_HOST: z.string().default("0.0.0.0"),
  OPS_PORT: envInt(3101, 0, 65535),
  /** Jobs processed at once by this process (speech recognition is CPU-bound: keep it low). */
  WORKER_CONCURRENCY: envInt(1, 1, 64),
  /** Longest a graceful shutdown may take (the running job finishes first). */
  SHUTDOWN_TIMEOUT_MS: envInt(30_000, 1_000),
});

export type TranscriptionWorkerConfig = z.infer<typeof transcriptionWorkerEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): TranscriptionWorkerConfig {
  return parseConfig("transcription-worker", transcriptionWorkerEnv, env);
}
