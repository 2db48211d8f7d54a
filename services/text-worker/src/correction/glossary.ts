/**
 * The glossary in the correction step, around either engine: the transcript it corrects (and its
 * heard turns) is first written with the glossary's spellings (applyGlossary), the engine is told
 * the terms (CorrectionInput.glossary: the language model's prompt lists them), and each corrected
 * section is put through the glossary again before it is stored, as is the interview text (an
 * engine may have re-capitalised or re-spaced a term).
 */
import { applyGlossary } from "@kikitori/shared";
import { memoryStepStore } from "@kikitori/shared/server";
import type { CorrectionEngine, CorrectionInput, CorrectOptions } from "./port.ts";

export function withGlossary(engine: CorrectionEngine, terms: readonly string[]): CorrectionEngine {
  if (!terms.length) return engine;
  return {
    name: engine.name,
    async correct(input: CorrectionInput, opts: CorrectOptions = {}) {
      const fix = (text: string) => applyGlossary(text, terms, input.language).text;
      const steps = opts.steps ?? memoryStepStore<string, number>();
      const result = await engine.correct(
        {
          ...input,
          transcript: fix(input.transcript),
          turns: input.turns?.map((t) => ({ ...t, text: fix(t.text) })),
          glossary: [...terms],
        },
        { ...opts, steps: { get: (index) => steps.get(index), put: (index, text) => steps.put(index, fix(text)) } },
      );
      return { text: fix(result.text), sections: result.sections.map(fix) };
    },
  };
}
