/** The correction port, its two engines and the factory the worker uses. */

import { OfflineCorrectionEngine } from "./offline.ts";
import { OpenAiCorrectionEngine } from "./openai.ts";
import type { CorrectionEngine } from "./port.ts";

export { OfflineCorrectionEngine } from "./offline.ts";
export * from "./port.ts";

export interface CorrectionEngineConfig {
  CORRECTION_ENGINE: "offline" | "openai";
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  CORRECTION_MODEL: string;
  CORRECTION_SECTION_CHARS: number;
  OPENAI_TIMEOUT_MS: number;
}

export function createCorrectionEngine(config: CorrectionEngineConfig): CorrectionEngine {
  if (config.CORRECTION_ENGINE === "openai") {
    return new OpenAiCorrectionEngine({
      baseURL: config.OPENAI_BASE_URL || undefined,
      apiKey: config.OPENAI_API_KEY,
      model: config.CORRECTION_MODEL,
      sectionChars: config.CORRECTION_SECTION_CHARS,
      timeoutMs: config.OPENAI_TIMEOUT_MS,
    });
  }
  return new OfflineCorrectionEngine({ sectionChars: config.CORRECTION_SECTION_CHARS });
}
