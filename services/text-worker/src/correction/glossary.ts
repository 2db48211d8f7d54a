/**
 * The glossary in the correction step, around either engine: the transcript it corrects (and its
 * heard turns) is first written with the glossary's spellings (applyGlossary), the engine is told
 * the terms (CorrectionInput.glossary: the language model's prompt lists them), and each corrected
 * section and the interview text are put through the glossary again (an engine may have
 * re-capitalised or re-spaced a term).
 */
import { applyGlossary } from "@kikitori/shared";
import type { CorrectionEngine, CorrectionInput, CorrectOptions } from "./port.ts";

export function withGlossary(engine: CorrectionEngine, terms: readonly string[]): CorrectionEngine {
  if (!terms.length) return engine;
  return {
    name: engine.name,
    async correct(input: CorrectionInput, opts: CorrectOptions = {}) {
      const fix = (text: string) => applyGlossary(text, terms, input.language).text;
      const onSection = opts.onSection;
      const result = await engine.correct(
        {
          ...input,
          transcript: fix(input.transcript),
          turns: input.turns?.map((t) => ({ ...t, text: fix(t.text) })),
          glossary: [...terms],
        },
        { ...opts, onSection: onSection && ((index, text, done, total) => onSection(index, fix(text), done, total)) },
      );
      return { text: fix(result.text), sections: result.sections.map(fix) };
    },
  };
}
