// The glossary around a correction engine: the transcript and its turns reach the engine with the
// glossary's spellings, the engine is told the terms (the language model's prompt lists them), and
// the stored sections and the interview text come out with them too — with the real offline engine.

import { memoryStepStore } from "@kikitori/shared/server";
import { withGlossary } from "../src/correction/glossary.ts";
import type { CorrectionEngine, CorrectionInput, CorrectOptions } from "../src/correction/index.ts";
import { OfflineCorrectionEngine } from "../src/correction/index.ts";
import { buildSystemPrompt } from "../src/correction/openai.ts";

const TERMS = ["Honey Cake", "Apprentices"];

const input = (over: Partial<CorrectionInput> = {}): CorrectionInput => ({
  transcript:
    "so what do you bake every morning well honey cake mostly and the apprentices help me the apprentices start at five and they love honeycake",
  language: "en",
  interviewer: "Anna",
  interviewee: "Ben",
  tone: null,
  interviewExample: "",
  fileType: "general",
  ...over,
});

it("gives the engine the transcript, turns and terms with the glossary's spellings", async () => {
  const seen: CorrectionInput[] = [];
  const echo: CorrectionEngine = {
    name: "echo",
    async correct(i: CorrectionInput, opts?: CorrectOptions) {
      seen.push(i);
      // An engine that lower-cases what it writes: the glossary is applied to its output again.
      const text = i.transcript.toLowerCase();
      const stored = (await opts?.steps?.put(0, text)) ?? text;
      await opts?.onSection?.(0, stored, 1, 1);
      return { text, sections: [text] };
    },
  };
  const sections: string[] = [];
  const stored = new Map<number, string>();
  const turns = [{ speaker: 0, role: "interviewer" as const, name: "Anna", start: 0, end: 2, text: "any honeycake?" }];
  const out = await withGlossary(echo, TERMS).correct(input({ turns }), {
    steps: memoryStepStore(stored),
    onSection: (_i, text) => {
      sections.push(text);
    },
  });
  expect(seen[0].transcript).toContain("well Honey Cake mostly and the Apprentices help me");
  expect(seen[0].transcript).toContain("they love Honey Cake");
  expect(seen[0].turns?.[0].text).toBe("any Honey Cake?");
  expect(seen[0].glossary).toEqual(TERMS);
  expect(out.text).toContain("Honey Cake mostly and the Apprentices help me");
  expect(out.sections[0]).toBe(out.text);
  expect(sections).toEqual([out.text]);
  expect([...stored]).toEqual([[0, out.text]]);
});

it("leaves the engine as it is without a glossary", () => {
  const engine = new OfflineCorrectionEngine({ sectionChars: 6000 });
  expect(withGlossary(engine, [])).toBe(engine);
});

it("makes the offline engine's interview text spell the terms as the glossary does", async () => {
  const engine = withGlossary(new OfflineCorrectionEngine({ sectionChars: 6000 }), TERMS);
  const out = await engine.correct(input());
  expect(out.text).toContain("Honey Cake");
  expect(out.text).toContain("Apprentices");
  expect(out.text).not.toMatch(/honey ?cake|\bapprentices/);
});

it("lists the terms in the language model's instructions", () => {
  const prompt = buildSystemPrompt(input({ glossary: TERMS }));
  expect(prompt).toContain("Glossary:");
  expect(prompt).toContain("Honey Cake; Apprentices");
  expect(buildSystemPrompt(input())).not.toContain("Glossary:");
});
