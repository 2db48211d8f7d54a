import { commonEnv, envInt, parseConfig, secretFileEnv } from "@kikitori/shared/server";
import { z } from "zod";

export const textWorkerEnv = z.object({
  ...commonEnv,
  /** Port and interface of the ops server (/healthz, /readyz, /metrics). */
  OPS_HOST: z.string().default("0.0.0.0"),
  OPS_PORT: envInt(3102, 0, 65535),
  /** Jobs processed at once by this process (mostly waiting on the language model). */
  WORKER_CONCURRENCY: envInt(4, 1, 64),
  /**
   * Longest a graceful shutdown may take; the pod's grace period must be above it. A running
   * correction finishes the section in hand (one language-model call, OPENAI_TIMEOUT_MS) and goes
   * back to the queue; a section still running when a fifth of this time (at most 10 s) is left is
   * given up and its job goes back too. Text jobs finish as they are, so keep it above
   * OPENAI_TIMEOUT_MS.
   */
  SHUTDOWN_TIMEOUT_MS: envInt(150_000, 1_000),
  /** OpenAI-compatible chat server shared by the `openai` engines (OpenAI, vLLM, Ollama, LM Studio…). */
  OPENAI_BASE_URL: z.string().optional(),
  OPENAI_API_KEY: z.string().default("not-needed"),
  ...secretFileEnv("OPENAI_API_KEY"),
  OPENAI_TIMEOUT_MS: envInt(120_000, 1_000),
  /** Correction engine: `offline` (rules, the default) or `openai` (chat completions). */
  CORRECTION_ENGINE: z.enum(["offline", "openai"]).default("offline"),
  CORRECTION_MODEL: z.string().default("gpt-4o-mini"),
  /** Transcripts are corrected in sections of about this many characters. */
  CORRECTION_SECTION_CHARS: envInt(6000, 500, 100_000),
  LOCK_DURATION_MS: envInt(30_000, 1_000),
  STALLED_INTERVAL_MS: envInt(30_000, 1_000),
  /** Times a job may be taken over from a worker that died (OOM, node loss) before it fails for good. */
  MAX_STALLED_COUNT: envInt(2, 0, 100),
  /** Summary and title/heading engine: `offline` (embedded, no model) or `openai` (OPENAI_* above). */
  TEXT_ENGINE: z.enum(["offline", "openai"]).default("offline"),
  TEXT_MODEL: z.string().min(1).default("gpt-4o-mini"),
  /** Answers the `openai` text engine may ask for per run: the first plus regenerations with the failures named. */
  TEXT_MAX_ATTEMPTS: envInt(3, 1, 10),
  /** Text jobs (QUEUES.text) processed at once by this process. */
  TEXT_WORKER_CONCURRENCY: envInt(4, 1, 64),
});

export type TextWorkerConfig = z.infer<typeof textWorkerEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): TextWorkerConfig {
  return parseConfig("text-worker", textWorkerEnv, env);
}
