import os from "node:os";
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
  /** Speech engine: `pocketsphinx` (offline, English only) or `openai` (any OpenAI-compatible server). */
  TRANSCRIPTION_ENGINE: z.enum(["pocketsphinx", "openai"]).default("pocketsphinx"),
  POCKETSPHINX_BIN: z.string().default("pocketsphinx_continuous"),
  POCKETSPHINX_MODEL_DIR: z.string().default("/usr/share/pocketsphinx/model/en-us"),
  /** OpenAI-compatible speech server (OpenAI, speaches/faster-whisper, vLLM, whisper.cpp server). */
  OPENAI_BASE_URL: z.string().optional(),
  OPENAI_API_KEY: z.string().default("not-needed"),
  TRANSCRIPTION_MODEL: z.string().default("whisper-1"),
  OPENAI_TIMEOUT_MS: envInt(300_000, 1_000),
  /** Target length of the pieces a recording is cut into (at silences), in seconds. */
  CHUNK_SECONDS: envInt(30, 5, 600),
  /** Chunks this process transcribes at once (pocketsphinx uses one core per chunk). */
  CHUNK_CONCURRENCY: envInt(Math.max(1, os.availableParallelism()), 1, 64),
  /** BullMQ lock and stalled-job check: how soon a job of a dead worker is picked up again. */
  LOCK_DURATION_MS: envInt(30_000, 1_000),
  STALLED_INTERVAL_MS: envInt(30_000, 1_000),
  /** How often uploaded audio past AUDIO_RETENTION_DAYS is deleted. */
  RETENTION_SWEEP_EVERY_MS: envInt(3_600_000, 1_000),
  TMP_DIR: z.string().default(os.tmpdir()),
});

export type TranscriptionWorkerConfig = z.infer<typeof transcriptionWorkerEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): TranscriptionWorkerConfig {
  return parseConfig("transcription-worker", transcriptionWorkerEnv, env);
}
