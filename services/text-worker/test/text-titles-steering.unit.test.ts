// The custom request steers the offline titles (angle, tone, form) but never supplies their words;
// every word of a title comes from the text or its headline pattern; titles of a run differ in wording,
// and a repeated run brings other titles. The checks the model engine is held to say the same.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { detectLanguage, spacingOf, tokenize } from "@kikitori/shared/language";
import { checkTitles, describeFailure } from "../src/text/checks.ts";
import { foldWord } from "../src/text/keyphrases.ts";
import { OfflineTextEngine } from "../src/text/offline.ts";
import { parseSteering } from "../src/text/steering.ts";
import { patternWords } from "../src/text/title-patterns.ts";
import { titlesOffline } from "../src/text/titles.ts";

const DIR = path.resolve(import.meta.dirname, "fixtures/text-corpus");
const read = (f: string) => readFileSync(path.join(DIR, f), "utf8");
const files = [
  "en-article-heat.txt",
  "en-interview-reefs.txt",
  "en-meeting-product.txt",
  "de-artikel-waermepumpe.txt",
  "de-interview-baeckerei.txt",
  "ja-article-remote.txt",
  "ja-interview-farm.txt",
  "zh-article-bikes.txt",
  "zh-interview-bookstore.txt",
];

/** Words (spaced scripts) or characters (spaceless) of a string, folded as the engine compares them. */
function units(s: string, lang: string): string[] {
  if (spacingOf(lang) === "none") return [...s].filter((c) => /[\p{L}\p{N}]/u.test(c));
  return tokenize(s, lang)
    .filter((t) => t.content && !/^\d+$/u.test(t.norm))
    .map((t) => foldWord(t.norm, lang));
}

const UNUSUAL: Record<string, string> = {
  en: "Phrased as questions, whimsical like a zephyr: quokka, patents, flibbertigibbet, saxophone",
  de: "Als Fragen formuliert, verspielt wie ein Zephyr: Quokka, Patente, Saxophon, Flickschusterei",
  ja: "質問形式で、量子コンピューターと猫とサクソフォンのように",
  zh: "用问句，像量子计算机和熊猫和萨克斯风一样",
};

describe("the request steers but is not content", () => {
  it.each(files)("%s: a request of unusual words puts none of them in the titles or headings", async (file) => {
    const text = read(file);
    const lang = detectLanguage(text);
    const customPrompt = UNUSUAL[lang];
    const out = titlesOffline({ text, numTitles: 6, numHeadings: 4, customPrompt });
    const unusual = [
      "quokka",
      "patent",
      "flibbertigibbet",
      "saxophon",
      "zephyr",
      "phrased",
      "量子",
      "猫",
      "サクソフォン",
      "熊猫",
      "萨克斯",
    ];
    for (const t of [...out.titles, ...out.headings]) {
      for (const w of unusual) expect([t, t.toLocaleLowerCase().includes(w)]).toEqual([t, false]);
    }
    // The form asked for is still followed: questions (Japanese headlines ask with "…のか" as well as "？").
    expect(out.titles.filter((t) => /(?:[?？]|か)$/u.test(t)).length).toBeGreaterThanOrEqual(3);
    expect(checkTitles(out, { numTitles: 6, numHeadings: 4, text, customPrompt }).map(describeFailure)).toEqual([]);
  });

  it("a topic word of the request finds the text's own word (plural folded), never its own form", () => {
    const text = [
      "The patent office received a record number of filings this year.",
      "A patent lasts twenty years; the patent owner pays a yearly fee.",
      "Small firms say the fees are too high, and the office plans a discount for small firms.",
      "Universities file fewer patent requests than firms, but their inventions are cited more often.",
    ].join("\n");
    const out = titlesOffline({ text, numTitles: 3, numHeadings: 2, customPrompt: "focus on patents" });
    expect(out.titles[0].toLowerCase()).toContain("patent");
    for (const t of out.titles) expect(t.toLowerCase()).not.toContain("patents");
  });

  it("a quoted term is used as the text writes it, and only when the text has it", () => {
    const text = read("en-article-heat.txt");
    const out = titlesOffline({
      text,
      numTitles: 4,
      numHeadings: 2,
      customPrompt: 'mention "COOL ROOFS" and "flux capacitor"',
    });
    expect(out.titles.some((t) => t.includes("ool roofs"))).toBe(true);
    expect(out.titles.join(" ")).not.toMatch(/COOL ROOFS|flux|capacitor/u);
  });

  it("tone: a formal and a casual request get different kinds of headline", () => {
    const text = read("en-article-heat.txt");
    expect(parseSteering("formal, please", "en").tone).toBe("formal");
    expect(parseSteering("make them catchy and fun", "en").tone).toBe("casual");
    expect(parseSteering("カジュアルに", "ja").tone).toBe("casual");
    const formal = titlesOffline({ text, numTitles: 3, numHeadings: 2, customPrompt: "formal" }).titles;
    const casual = titlesOffline({ text, numTitles: 3, numHeadings: 2, customPrompt: "casual" }).titles;
    expect(formal.join("|")).toMatch(/overview|review|state of|assessment/u);
    expect(casual.join("|")).toMatch(/Let's talk|Here's what|Everything you wanted|All about/u);
    for (const t of [...formal, ...casual]) expect(t.toLowerCase()).not.toMatch(/formal|casual/u);
  });
});

describe("grounded and distinct titles", () => {
  it.each(files)(
    "%s: every word of a title is the text's or its pattern's; no two titles share their words",
    (file) => {
      const text = read(file);
      const lang = detectLanguage(text);
      const allowed = new Set([...units(text, lang), ...patternWords(lang)]);
      for (const numTitles of [3, 5, 10]) {
        const out = titlesOffline({ text, numTitles, numHeadings: 3, customPrompt: "" });
        const sets = out.titles.map((t) => [...new Set(units(t, lang))].sort().join(" "));
        expect([numTitles, new Set(sets).size]).toEqual([numTitles, numTitles]);
        for (const t of out.titles) {
          const strangers = units(t, lang).filter((w) => !allowed.has(w));
          expect([t, strangers]).toEqual([t, []]);
        }
      }
    },
  );

  it("a second run on the same text brings other titles, not the same ones reordered", async () => {
    const engine = new OfflineTextEngine();
    for (const file of ["en-article-heat.txt", "ja-article-remote.txt", "de-artikel-waermepumpe.txt"]) {
      const text = read(file);
      const lang = detectLanguage(text);
      const input = { text, numTitles: 4, numHeadings: 3, customPrompt: "" };
      const first = await engine.titles(input);
      const second = await engine.titles(input);
      const key = (t: string) => [...new Set(units(t, lang))].sort().join(" ");
      const firstKeys = new Set(first.titles.map(key));
      expect([file, second.titles.filter((t) => firstKeys.has(key(t)))]).toEqual([file, []]);
      // Headings name the blocks of the text: they stay where they are.
      expect(second.headings).toEqual(first.headings);
    }
  });
});

describe("the checks the model engine is held to", () => {
  const text = read("en-article-heat.txt");
  it("names titles that only reorder another's words, and request words the text lacks", () => {
    const f = checkTitles(
      { titles: ["Heat and trees", "Trees and heat", "What role for phrased?"], headings: ["Quokka shade", "Trees"] },
      { numTitles: 3, numHeadings: 2, text, customPrompt: "phrased as questions, about quokka" },
    );
    expect(f.map((x) => x.kind).sort()).toEqual(["reordered_title", "request_word", "request_word"]);
    expect(f.map(describeFailure).join("\n")).toContain('"phrased"');
    expect(f.map(describeFailure).join("\n")).toContain("only reorders");
  });

  it("a request word the text also uses is fine", () => {
    expect(
      checkTitles(
        { titles: ["Trees cool the city"], headings: ["Shade"] },
        { numTitles: 1, numHeadings: 1, text, customPrompt: "focus on trees" },
      ),
    ).toEqual([]);
  });
});
