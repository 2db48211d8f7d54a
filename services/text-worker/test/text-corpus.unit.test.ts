// The offline engine on the test corpus (interviews, articles and meeting notes in English, Japanese,
// German and Chinese): every required phrase present, length within ±10%, exact and distinct counts,
// headings grounded in their block of lines.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { charCount, headingBlocks, textLines } from "@kikitori/shared";
import { detectLanguage, splitSentences, tokenize } from "@kikitori/shared/language";
import { checkSummary, checkTitles } from "../src/text/checks.ts";
import { OfflineTextEngine } from "../src/text/offline.ts";

interface CorpusEntry {
  file: string;
  lang: string;
  kind: string;
  phrases: string[];
  absentPhrase?: string;
}

const DIR = path.resolve(import.meta.dirname, "fixtures/text-corpus");
const corpus: CorpusEntry[] = JSON.parse(readFileSync(path.join(DIR, "corpus.json"), "utf8"));
const texts = corpus.map((c) => ({ ...c, text: readFileSync(path.join(DIR, c.file), "utf8") }));
const engine = new OfflineTextEngine();

/** A small deterministic PRNG (mulberry32), so the sampled cases are the same on every run. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("the corpus", () => {
  it("has at least 12 texts in English, Japanese, German and Chinese, of interviews, articles and minutes", () => {
    expect(texts.length).toBeGreaterThanOrEqual(12);
    for (const lang of ["en", "ja", "de", "zh"]) {
      expect(new Set(texts.filter((t) => t.lang === lang).map((t) => t.kind))).toEqual(
        new Set(["interview", "article", "meeting"]),
      );
    }
    for (const t of texts) {
      expect(charCount(t.text)).toBeGreaterThanOrEqual(1400);
      for (const p of t.phrases) expect([t.file, p, t.text.includes(p)]).toEqual([t.file, p, true]);
      if (t.absentPhrase) expect(t.text.includes(t.absentPhrase)).toBe(false);
    }
  });

  it.each(texts.map((t) => [t.file, t] as const))("%s is detected as its language", (_f, t) => {
    expect(detectLanguage(t.text)).toBe(t.lang);
  });
});

describe("summaries", () => {
  const cases = texts.flatMap((t) => {
    const n = charCount(t.text);
    const phrases = [...t.phrases, ...(t.absentPhrase ? [t.absentPhrase] : [])];
    return [1000, Math.floor((1000 + n) / 2), n].map((d) => [t.file, d, t.text, phrases] as const);
  });

  it.each(cases)("%s at %i characters: every phrase, length within ±10%%", async (_f, desiredLength, text, phrases) => {
    const summary = await engine.summarize({ text, requiredPhrases: phrases, desiredLength });
    expect(checkSummary(summary, { requiredPhrases: phrases, desiredLength })).toEqual([]);
  });

  it.each(["en-article-heat.txt", "ja-interview-farm.txt", "de-interview-baeckerei.txt"])(
    "%s: extractive, every sentence of the summary is a sentence of the text",
    async (file) => {
      const t = texts.find((x) => x.file === file)!;
      const summary = await engine.summarize({ text: t.text, requiredPhrases: t.phrases, desiredLength: 1200 });
      for (const s of splitSentences(summary, t.lang)) {
        // A sentence from the middle of a speaker's line is shown after the speaker's label.
        const bare = s.text.replace(/…$/u, "").replace(/^[^:：\n]{1,40}[:：]\s*/u, "");
        expect([s.text, t.text.includes(bare)]).toEqual([s.text, true]);
      }
      expect(charCount(summary)).toBeLessThan(charCount(t.text));
    },
  );

  it("a phrase the text does not contain is still included verbatim", async () => {
    const t = texts.find((x) => x.file === "zh-article-bikes.txt")!;
    const summary = await engine.summarize({
      text: t.text,
      requiredPhrases: ["碳中和目标", "共享单车"],
      desiredLength: 1000,
    });
    expect(summary).toContain("碳中和目标");
  });

  it("200 sampled cases (random lengths, random phrases cut from the text) all pass the checks", async () => {
    const rand = rng(20240601);
    const failures: unknown[] = [];
    for (let k = 0; k < 200; k++) {
      const t = texts[Math.floor(rand() * texts.length)];
      const n = charCount(t.text);
      const desiredLength = 1000 + Math.floor(rand() * (Math.min(n, 10_000) - 1000 + 1));
      const words = tokenize(t.text, t.lang).filter((w) => w.content);
      const phrases: string[] = [];
      const count = 2 + Math.floor(rand() * 4);
      while (phrases.length < count) {
        const w = words[Math.floor(rand() * words.length)];
        // A phrase of one to three neighbouring words, verbatim from the text.
        const end = words[Math.min(words.length - 1, words.indexOf(w) + Math.floor(rand() * 3))].end;
        const phrase = t.text.slice(w.start, end).trim();
        if (phrase && !phrase.includes("\n") && !phrases.includes(phrase)) phrases.push(phrase);
      }
      if (rand() < 0.2) phrases.push("Kikitori");
      const summary = await engine.summarize({ text: t.text, requiredPhrases: phrases, desiredLength });
      const f = checkSummary(summary, { requiredPhrases: phrases, desiredLength });
      if (f.length) failures.push({ file: t.file, desiredLength, phrases, f });
    }
    expect(failures).toEqual([]);
  });
});

describe("titles and headings", () => {
  const counts: Array<[number, number]> = [
    [3, 3],
    [5, 4],
    [1, 1],
    [10, 8],
  ];
  const cases = texts.flatMap((t) =>
    counts.map(([numTitles, numHeadings]) => [t.file, numTitles, numHeadings, t] as const),
  );

  it.each(cases)("%s: %i titles, %i headings", async (_f, numTitles, numHeadings, t) => {
    const out = await engine.titles({ text: t.text, numTitles, numHeadings, customPrompt: "" });
    expect(checkTitles(out, { numTitles, numHeadings })).toEqual([]);
    // Heading i names block i: its words come from that block's lines.
    const lines = textLines(t.text);
    const blocks = headingBlocks(lines.length, numHeadings);
    blocks.forEach((b, i) => {
      const block = lines.slice(b.start, b.end).join("\n").toLocaleLowerCase();
      const words = tokenize(out.headings[i], t.lang)
        .filter((w) => w.content)
        .map((w) => w.norm);
      const grounded = words.filter((w) => block.includes(w));
      expect([t.file, i, out.headings[i], grounded.length > 0]).toEqual([t.file, i, out.headings[i], true]);
    });
  });

  it("titles are in the text's language and use its key phrases", async () => {
    const ja = texts.find((x) => x.file === "ja-article-remote.txt")!;
    const out = await engine.titles({ text: ja.text, numTitles: 5, numHeadings: 3, customPrompt: "" });
    for (const title of out.titles) expect(title).toMatch(/[\u3040-\u30ff\u4e00-\u9faf]/u);
    expect(out.titles.join("")).toMatch(/移住|リモートワーク|地域/u);
    const de = texts.find((x) => x.file === "de-artikel-waermepumpe.txt")!;
    const outDe = await engine.titles({ text: de.text, numTitles: 5, numHeadings: 3, customPrompt: "" });
    expect(outDe.titles.join(" ")).toMatch(/Wärmepumpe/u);
  });
});
