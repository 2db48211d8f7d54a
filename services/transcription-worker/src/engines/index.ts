import os from "node:os";
import type { Logger } from "@kikitori/shared/server";
import type { TranscriptionWorkerConfig } from "../config.ts";
import { createAutoEngine } from "./auto.ts";
import { OpenAiTranscriptionEngine } from "./openai.ts";
import { PocketSphinxEngine } from "./pocketsphinx.ts";
import { fallback, type SpeechSetup, startWhisper, statusOf, whisperModelOf } from "./start.ts";

export type { EngineResult, EngineSegment, TranscribeOptions, TranscriptionEngine } from "./port.ts";
export { SpeechModelUnavailableError, type SpeechSetup, startWhisper } from "./start.ts";

/**
 * Chooses the speech engine at start, from TRANSCRIPTION_ENGINE, and checks it can work (model file
 * present and verified, model loads, CPU has AVX2), so problems show at start and not on a job.
 * When `whisper` cannot work and TRANSCRIPTION_FALLBACK=pocketsphinx, English falls back to the rough
 * offline engine: never silently — the log says so, and the status carries a notice the transcription
 * screen shows; other languages are refused naming the setting that fixes it.
 */
export async function createSpeechEngine(cfg: TranscriptionWorkerConfig, logger: Logger): Promise<SpeechSetup> {
  const cores = Math.max(1, os.availableParallelism());
  const perCore = cfg.CHUNK_CONCURRENCY || cores;
  if (cfg.TRANSCRIPTION_ENGINE === "openai") {
    const engine = new OpenAiTranscriptionEngine({
      baseURL: cfg.OPENAI_BASE_URL,
      apiKey: cfg.OPENAI_API_KEY,
      model: cfg.TRANSCRIPTION_MODEL,
      timeoutMs: cfg.OPENAI_TIMEOUT_MS,
    });
    return { engine, status: statusOf(engine, cfg.TRANSCRIPTION_MODEL, null), chunkConcurrency: perCore };
  }
  const pocketsphinx = () =>
    new PocketSphinxEngine({ bin: cfg.POCKETSPHINX_BIN, modelDir: cfg.POCKETSPHINX_MODEL_DIR });
  if (cfg.TRANSCRIPTION_ENGINE === "pocketsphinx") {
    const engine = pocketsphinx();
    return { engine, status: statusOf(engine, "en-us", null), chunkConcurrency: perCore };
  }

  if (cfg.TRANSCRIPTION_ENGINE === "auto") return createAutoEngine(cfg, logger, pocketsphinx, perCore);

  // whisper: one process with every core unless CHUNK_CONCURRENCY says otherwise.
  const whisper = await startWhisper(cfg, logger);
  if (typeof whisper === "string") return fallback(cfg, logger, whisper, pocketsphinx, perCore);
  return {
    engine: whisper,
    status: statusOf(whisper, whisperModelOf(whisper), null),
    chunkConcurrency: cfg.CHUNK_CONCURRENCY || 1,
  };
}
