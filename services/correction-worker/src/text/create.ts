import type { TextEngine } from "./engine.ts";
import { OfflineTextEngine } from "./offline.ts";
import { OpenAiTextEngine } from "./openai.ts";

export interface TextEngineConfig {
  TEXT_ENGINE: "offline" | "openai";
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY: string;
  OPENAI_TIMEOUT_MS: number;
  TEXT_MODEL: string;
  TEXT_MAX_ATTEMPTS: number;
}

/** The engine the config names. */
export function createTextEngine(cfg: TextEngineConfig): TextEngine {
  if (cfg.TEXT_ENGINE === "openai") {
    return new OpenAiTextEngine({
      apiKey: cfg.OPENAI_API_KEY,
      baseURL: cfg.OPENAI_BASE_URL || undefined,
      model: cfg.TEXT_MODEL,
      maxAttempts: cfg.TEXT_MAX_ATTEMPTS,
      timeoutMs: cfg.OPENAI_TIMEOUT_MS,
    });
  }
  return new OfflineTextEngine();
}
