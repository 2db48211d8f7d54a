import os from "node:os";
import { commonEnv, envInt, parseConfig, secretFileEnv } from "@kikitori/shared/server";
import { z } from "zod";
import { DEFAULT_WHISPER_MODEL, WHISPER_MODEL_NAMES } from "./models/catalog.ts";

export const transcriptionWorkerEnv = z.object({
  ...commonEnv,
  /** Port and interface of the ops server (/healthz, /readyz, /metrics). */
  OPS_HOST: z.string().default("0.0.0.0"),
  OPS_PORT: envInt(3101, 0, 65535),
  /** Jobs processed at once by this process (speech recognition is CPU-bound: keep it low). */
  WORKER_CONCURRENCY: envInt(1, 1, 64),
  /** Longest a graceful shutdown may take (the running job finishes first). */
  SHUTDOWN_TIMEOUT_MS: envInt(30_000, 1_000),
  /**
   * Speech engine: `whisper` (embedded whisper.cpp, every language), `pocketsphinx` (offline, English
   * only, rough), `openai` (any OpenAI-compatible server) or `auto`: per audio language the best
   * engine whose model is in MODELS_DIR (Parakeet for 25 European languages, SenseVoice for ja, zh,
   * ko, yue, Whisper for the rest and for detection; docs/decisions/0034).
   */
  TRANSCRIPTION_ENGINE: z.enum(["whisper", "pocketsphinx", "openai", "auto"]).default("auto"),
  /** Parakeet model for `auto`: v3 (25 European languages) or v2 (English only). */
  PARAKEET_MODEL: z
    .enum(["parakeet-tdt-0.6b-v3-int8", "parakeet-tdt-0.6b-v2-int8"])
    .default("parakeet-tdt-0.6b-v3-int8"),
  /** A directory with Parakeet's files to use instead of MODELS_DIR's (not checksummed). */
  PARAKEET_MODEL_DIR: z.string().optional(),
  /** A directory with SenseVoice's files (model.int8.onnx, tokens.txt) to use instead of MODELS_DIR's. */
  SENSEVOICE_MODEL_DIR: z.string().optional(),
  /** Threads of each sherpa-onnx recognizer; 0 = every core. */
  SHERPA_THREADS: envInt(0, 0, 64),
  /**
   * What `whisper` does when its model cannot be had (not downloaded, no network, wrong checksum, CPU
   * without AVX2): `pocketsphinx` takes English (with a notice in the log and on the screen) and other
   * languages are refused naming the setting; `none` refuses to start.
   */
  TRANSCRIPTION_FALLBACK: z.enum(["pocketsphinx", "none"]).default("pocketsphinx"),
  /** Whisper model (see `npm run models -- list`), downloaded into MODELS_DIR by `npm start` / `npm run models -- pull`. */
  WHISPER_MODEL: z.enum(WHISPER_MODEL_NAMES).default(DEFAULT_WHISPER_MODEL),
  /** A ggml model file to use instead (a mirror's or a fine-tuned one; not checksummed). */
  WHISPER_MODEL_PATH: z.string().optional(),
  MODELS_DIR: z.string().default("var/models"),
  /** Threads per whisper process; default: the cores shared out over CHUNK_CONCURRENCY. */
  WHISPER_THREADS: envInt(0, 0, 64),
  /** A chunk taking longer than this is stopped (its process killed) and retried. */
  WHISPER_CHUNK_TIMEOUT_MS: envInt(600_000, 1_000),
  POCKETSPHINX_BIN: z.string().default("pocketsphinx_continuous"),
  POCKETSPHINX_MODEL_DIR: z.string().default("/usr/share/pocketsphinx/model/en-us"),
  /** OpenAI-compatible speech server (OpenAI, speaches/faster-whisper, vLLM, whisper.cpp server). */
  OPENAI_BASE_URL: z.string().optional(),
  OPENAI_API_KEY: z.string().default("not-needed"),
  ...secretFileEnv("OPENAI_API_KEY"),
  TRANSCRIPTION_MODEL: z.string().default("whisper-1"),
  OPENAI_TIMEOUT_MS: envInt(300_000, 1_000),
  /**
   * Who said what: `auto` (sherpa-onnx when its models are in MODELS_DIR, else classic), `sherpa`,
   * `classic` (acoustic features and clustering, no model) or `none`.
   */
  DIARIZATION_ENGINE: z.enum(["auto", "sherpa", "classic", "none"]).default("auto"),
  /** Target length of the pieces a recording is cut into (at silences), in seconds. */
  CHUNK_SECONDS: envInt(30, 5, 600),
  /**
   * Chunks this process transcribes at once: for pocketsphinx one per core; for whisper 0 means one
   * process using every core (each whisper process holds its own copy of the model).
   */
  CHUNK_CONCURRENCY: envInt(0, 0, 64),
  /** BullMQ lock and stalled-job check: how soon a job of a dead worker is picked up again. */
  LOCK_DURATION_MS: envInt(30_000, 1_000),
  STALLED_INTERVAL_MS: envInt(30_000, 1_000),
  /** Times a job may be taken over from a worker that died (OOM, node loss) before it fails for good. */
  MAX_STALLED_COUNT: envInt(2, 0, 100),
  /**
   * Attempts per chunk job, with exponential backoff from CHUNK_BACKOFF_MS (10 s, 20 s, 40 s, ...).
   * A chunk that fails for good fails its recording, so the defaults outlast a few minutes of speech
   * server restart (6 attempts: about 5 minutes of retries).
   */
  CHUNK_ATTEMPTS: envInt(6, 1, 20),
  CHUNK_BACKOFF_MS: envInt(10_000, 0),
  /** How often uploaded audio past AUDIO_RETENTION_DAYS is deleted. */
  RETENTION_SWEEP_EVERY_MS: envInt(3_600_000, 1_000),
  TMP_DIR: z.string().default(os.tmpdir()),
});

export type TranscriptionWorkerConfig = z.infer<typeof transcriptionWorkerEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): TranscriptionWorkerConfig {
  return parseConfig("transcription-worker", transcriptionWorkerEnv, env);
}
