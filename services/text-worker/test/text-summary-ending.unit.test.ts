// Summaries end on a finished sentence: never on a clause of a long sentence ("…in new free
// programs,"), a cut word or a heading line, in every language, at any length.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { charCount } from "@kikitori/shared";
import { splitSentences } from "@kikitori/shared/language";
import { checkSummary, describeFailure, endsSentence, usesSentencePunctuation } from "../src/text/checks.ts";
import { OfflineTextEngine } from "../src/text/offline.ts";

const DIR = path.resolve(import.meta.dirname, "fixtures/text-corpus");
const read = (f: string) => readFileSync(path.join(DIR, f), "utf8");
const engine = new OfflineTextEngine();

/** Whole sentences of `text` (repeated files joined) up to about `chars` characters. */
function textOf(files: string[], lang: string, chars: number): string {
  const all = files.map(read).join("\n");
  let out = "";
  for (const s of splitSentences(all, lang, Number.MAX_SAFE_INTEGER)) {
    if (charCount(out) + charCount(s.text) > chars) break;
    out += (out ? (lang === "ja" || lang === "zh" ? "" : " ") : "") + s.text;
  }
  return out;
}

/** An article of long sentences full of commas: the summariser cuts these into clauses. */
const longSentences = Array.from(
  { length: 9 },
  (_, k) =>
    `In year ${k + 1} of the programme, the town, which had long resisted change, opened ${k + 2} new libraries, ` +
    `trained volunteers in reading, writing and arithmetic, invited parents to evening classes, paid for buses ` +
    `from the outer districts, and, after a long debate in the council, decided to invest the savings from the ` +
    `old energy contracts in new free programs, in particular for older people who had never used a computer.`,
).join(" ");

const texts: Array<[string, string, string[]]> = [
  ["en article", textOf(["en-article-heat.txt"], "en", 3000), ["street tree", "Paris"]],
  ["en interview", textOf(["en-interview-reefs.txt"], "en", 3000), ["coral reef restoration", "heat tolerance"]],
  ["en long sentences", longSentences.slice(0, 3000), ["libraries", "evening classes"]],
  ["de article", textOf(["de-artikel-waermepumpe.txt"], "de", 3000), []],
  ["de interview", textOf(["de-interview-baeckerei.txt"], "de", 3000), []],
  ["ja", textOf(["ja-article-remote.txt", "ja-interview-farm.txt", "ja-meeting-product.txt"], "ja", 3000), []],
  ["zh", textOf(["zh-article-bikes.txt", "zh-interview-bookstore.txt", "zh-meeting-weekly.txt"], "zh", 3000), []],
];

describe("a summary ends on a finished sentence", () => {
  it.each(texts)("%s: 3,000 characters to 500 ends with sentence punctuation", async (_name, text, phrases) => {
    expect(charCount(text)).toBeGreaterThan(2500);
    const requiredPhrases = phrases.length ? phrases : ["", ""];
    const summary = await engine.summarize({ text, requiredPhrases, desiredLength: 500 });
    expect(endsSentence(summary)).toBe(true);
    expect(summary.trimEnd()).toMatch(/[.!?。！？]["'”’」』)）]*$/u);
    expect(summary.trimEnd()).not.toMatch(/[,、，…]$/u);
    // The last sentence is one of the text's own: whole, or (when no whole one fits, as with sentences of
    // 400 characters and 500 wanted) its opening clauses closed with a full stop.
    const last = (splitSentences(summary, "xx").at(-1)?.text ?? "").replace(/^[^:：\n]{1,40}[:：]\s*/u, "");
    expect(text.includes(last) || text.includes(`${last.slice(0, -1)},`)).toBe(true);
  });

  it.each(texts)("%s: any length from 100 to the whole text, with or without phrases", async (_name, text, phrases) => {
    const total = charCount(text);
    let seed = 11;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let k = 0; k < 25; k++) {
      const desiredLength = Math.max(100, Math.floor(100 + next() * (total - 100)));
      const requiredPhrases = k % 2 && phrases.length ? phrases : [];
      const summary = await engine.summarize({ text, requiredPhrases, desiredLength });
      const failures = checkSummary(summary, { requiredPhrases, desiredLength, text }).map(describeFailure);
      expect([desiredLength, failures]).toEqual([desiredLength, []]);
      expect([desiredLength, endsSentence(summary)]).toEqual([desiredLength, true]);
    }
  });

  it("a long sentence's clause is never the ending, even when only one clause-sized piece fits", async () => {
    for (const desiredLength of [120, 250, 400, 700]) {
      const summary = await engine.summarize({
        text: longSentences,
        requiredPhrases: ["libraries", "evening classes"],
        desiredLength,
      });
      expect([desiredLength, summary.trimEnd().slice(-1)]).toEqual([desiredLength, "."]);
    }
  });

  it("the check names an unfinished ending, so the model engine regenerates it", () => {
    const text = "Trees cool streets. Shade matters.";
    const f = checkSummary("Trees cool streets, and in new free programs,", {
      requiredPhrases: [],
      desiredLength: 45,
      text,
    });
    expect(f.map((x) => x.kind)).toEqual(["unfinished"]);
    expect(describeFailure(f[0])).toContain("in new free programs,");
    expect(
      checkSummary("Trees cool streets. Shade matters…", { requiredPhrases: [], desiredLength: 34, text }),
    ).toEqual([expect.objectContaining({ kind: "unfinished" })]);
    expect(
      checkSummary("木陰は大切だ。", { requiredPhrases: [], desiredLength: 7, text: "木陰は大切だ。街は暑い。" }),
    ).toEqual([]);
    expect(
      checkSummary("Er sagte: „Es geht.“", {
        requiredPhrases: [],
        desiredLength: 20,
        text: "Er sagte: „Es geht.“ Ja.",
      }),
    ).toEqual([]);
  });

  it("texts without sentence punctuation (Thai, raw transcripts) are not held to it", () => {
    expect(usesSentencePunctuation("สวัสดีครับ วันนี้อากาศดี")).toBe(false);
    expect(usesSentencePunctuation("so we went there and it was fine")).toBe(false);
    expect(usesSentencePunctuation("We went there. It was fine")).toBe(true);
    expect(usesSentencePunctuation("行きました。よかった")).toBe(true);
  });
});
