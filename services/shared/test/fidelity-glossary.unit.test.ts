// The fidelity view with a job's glossary: a term the interview spells as the glossary does (where
// the transcript had another case, spacing or a near spelling) is the word heard, not a changed or
// invented one, and is listed as a glossary spelling.
import { describe, expect, it } from "@jest/globals";
import { fidelityReport } from "@kikitori/shared";

const RAW = [
  { start: 0, end: 4, text: "so what do you bake every morning", speaker: 0 },
  { start: 4, end: 9, text: "we bake honeycake and the aprentices help me with the dough", speaker: 1 },
  { start: 9, end: 12, text: "the apprentices start at five", speaker: 1 },
];
const CORRECTED =
  "Anna: So what do you bake every morning?\n\nBen: We bake Honey Cake, and the Apprentices help me with the dough. The Apprentices start at five.";
const speakers = [
  { id: 0, name: "Anna" },
  { id: 1, name: "Ben" },
];
const report = (glossary?: string[]) =>
  fidelityReport(RAW.map((s) => s.text).join(" "), CORRECTED, {
    language: "en",
    speakers,
    speakerNames: ["Anna", "Ben"],
    segments: RAW,
    glossary,
  });
const flaggedWords = (r: ReturnType<typeof report>) => [...r.reworded, ...r.invented].flatMap((f) => f.words);

describe("fidelity with a glossary", () => {
  it("without the glossary, the new spellings are flagged as changed words", () => {
    const r = report();
    expect(flaggedWords(r)).toEqual(expect.arrayContaining(["Honey", "Cake"]));
    expect(r.glossaryFixes).toEqual([]);
  });

  it("with it, they are the words heard, listed as glossary spellings", () => {
    const r = report(["Honey Cake", "Apprentices"]);
    expect(flaggedWords(r)).toEqual([]);
    expect(r.invented).toEqual([]);
    expect(r.supportedCount).toBe(r.sentenceCount);
    expect(r.glossaryFixes).toEqual([
      { from: "honeycake", to: "Honey Cake", count: 1 },
      { from: "aprentices", to: "Apprentices", count: 1 },
      { from: "apprentices", to: "Apprentices", count: 1 },
    ]);
  });

  it("does not list a glossary term the interview does not use", () => {
    const r = fidelityReport("we bake honeycake", "We bake bread.", { language: "en", glossary: ["Honey Cake"] });
    expect(r.glossaryFixes).toEqual([]);
  });
});
