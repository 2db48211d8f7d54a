import type { TranscriptionWorkerConfig } from "../config.ts";
import { OpenAiTranscriptionEngine } from "./openai.ts";
import { PocketSphinxEngine } from "./pocketsphinx.ts";
import type { TranscriptionEngine } from "./port.ts";

export type { TranscriptionEngine } from "./port.ts";

export function createTranscriptionEngine(
  cfg: Pick<
    TranscriptionWorkerConfig,
    | "TRANSCRIPTION_ENGINE"
    | "POCKETSPHINX_BIN"
    | "POCKETSPHINX_MODEL_DIR"
    | "OPENAI_BASE_URL"
    | "OPENAI_API_KEY"
    | "TRANSCRIPTION_MODEL"
    | "OPENAI_TIMEOUT_MS"
  >,
): TranscriptionEngine {
  if (cfg.TRANSCRIPTION_ENGINE === "openai") {
    return new OpenAiTranscriptionEngine({
      baseURL: cfg.OPENAI_BASE_URL,
      apiKey: cfg.OPENAI_API_KEY,
      model: cfg.TRANSCRIPTION_MODEL,
      timeoutMs: cfg.OPENAI_TIMEOUT_MS,
    });
  }
  return new PocketSphinxEngine({ bin: cfg.POCKETSPHINX_BIN, modelDir: cfg.POCKETSPHINX_MODEL_DIR });
}
