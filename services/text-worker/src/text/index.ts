/** The text engine port (summary, titles and headings), its two engines and the factory the worker uses. */

import { OfflineTextEngine } from "./offline.ts";
import { OpenAiTextEngine } from "./openai.ts";
import type { TextEngine } from "./port.ts";

export { OfflineTextEngine } from "./offline.ts";
export * from "./port.ts";

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
