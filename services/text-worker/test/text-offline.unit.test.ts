// Parts of the offline text engine: segmentation across scripts, language detection, the summariser's
// hard guarantees on awkward inputs, the title steering and the checks.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { charCount, headingBlocks, textLines } from "@kikitori/shared";
import { detectLanguage, splitSentences } from "@kikitori/shared/language";
import { checkSummary, checkTitles, describeFailure } from "../src/text/checks.ts";
import { findSpeakerLabels } from "../src/text/labels.ts";
import { sentenceWithPhrase } from "../src/text/phrase-sentence.ts";
import { textRank } from "../src/text/rank.ts";
import { parseSteering } from "../src/text/steering.ts";
import { summarizeOffline } from "../src/text/summarize.ts";
import { titlesOffline } from "../src/text/titles.ts";

const FIX = path.resolve(import.meta.dirname, "fixtures");
const read = (f: string) => readFileSync(path.join(FIX, f), "utf8");
const thai = read("th-article-transit.txt");
const reefs = read("text-corpus/en-interview-reefs.txt");
const heat = read("text-corpus/en-article-heat.txt");

describe("sentences", () => {
  it("Japanese: an opening quote starts the next sentence", () => {
    expect(splitSentences("反対されました。「機械に分かるものか」と言われました。", "ja").map((s) => s.text)).toEqual([
      "反対されました。",
      "「機械に分かるものか」と言われました。",
    ]);
  });

  it("German and English abbreviations do not end a sentence; line breaks do", () => {
    expect(
      splitSentences("Am 3. Mai kam Dr. Müller. Er sagte z. B. nichts.\nNeue Zeile", "de").map((s) => s.text),
    ).toEqual(["Am 3. Mai kam Dr. Müller.", "Er sagte z. B. nichts.", "Neue Zeile"]);
    expect(splitSentences("Mr. Smith met J. K. Rowling. It went well.", "en").map((s) => s.text)).toEqual([
      "Mr. Smith met J. K. Rowling.",
      "It went well.",
    ]);
  });

  it("Thai (no sentence punctuation) is cut at spaces into pieces of bounded length", () => {
    const spans = splitSentences(thai, "th");
    expect(spans.length).toBeGreaterThan(5);
    for (const s of spans) {
      expect(s.text.length).toBeLessThanOrEqual(320);
      expect(thai.slice(s.start, s.end)).toBe(s.text);
    }
  });

  it("Chinese and Japanese punctuation", () => {
    expect(splitSentences("今天天气很好。我们去公园吧！你去吗？", "zh")).toHaveLength(3);
  });

  it("finds speaker labels used on at least two lines", () => {
    const labels = [...findSpeakerLabels(reefs).values()].map((l) => l.name);
    expect(new Set(labels)).toEqual(new Set(["Interviewer", "Dr. Lena Ortiz"]));
  });
});

describe("language", () => {
  it.each([
    ["これは日本語の文章です。", "ja"],
    ["这是一个中文句子，我们今天开会。", "zh"],
    ["오늘 회의는 열 시에 시작합니다.", "ko"],
    [thai.slice(0, 200), "th"],
    ["Die Wärmepumpe ist im Altbau nicht immer die beste Lösung, aber sie funktioniert.", "de"],
    ["The heat pump is not always the best choice, but it works in most houses.", "en"],
    ["La pompe à chaleur est une solution pour les maisons et les appartements.", "fr"],
  ])("%s → %s", (text, lang) => {
    expect(detectLanguage(text)).toBe(lang);
  });
});

describe("TextRank", () => {
  it("ranks the sentence that shares most with the others highest", () => {
    const { scores, similarity } = textRank([
      ["coral", "reef", "heat"],
      ["coral", "nursery"],
      ["reef", "fish"],
      ["heat", "bleaching"],
      ["lunch", "sandwich"],
    ]);
    expect(scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    expect(Math.max(...scores)).toBe(scores[0]);
    expect(Math.min(...scores)).toBe(scores[4]);
    expect(similarity(0, 1)).toBeGreaterThan(0);
    expect(similarity(1, 4)).toBe(0);
  });
});

describe("summary guarantees", () => {
  const ok = (text: string, requiredPhrases: string[], desiredLength: number) => {
    const summary = summarizeOffline({ text, requiredPhrases, desiredLength });
    expect(checkSummary(summary, { requiredPhrases, desiredLength, text }).map(describeFailure)).toEqual([]);
    return summary;
  };

  it("Thai works like any other language", () => {
    const s = ok(thai, ["รถไฟฟ้า", "ทางเท้า"], 1000);
    expect(s).toMatch(/\p{Script=Thai}/u);
  });

  it("a phrase spanning two sentences is kept verbatim with the spacing between them", () => {
    ok(heat, ["Trees Are the Cheapest Fix.\n\nOn a hot July afternoon", "Paris"], 1000);
  });

  it("a phrase that is not in the text is woven into a sentence of its own, not tacked on as a fragment", () => {
    const s = ok(heat, ["green roofs in Tokyo", "street tree"], 1200);
    expect(s).toMatch(/ The discussion also relates to green roofs in Tokyo\.$/u);
    expect(s).not.toMatch(/\. green roofs in Tokyo\.$/u);
  });

  it("a short summary (100 characters) of a short interview keeps its phrases and length", () => {
    const text = heat.slice(0, 600);
    ok(text, ["heat", "city"], 100);
  });

  it("weaves a missing phrase in the text's language; a phrase that is a sentence stays as it is", () => {
    expect(sentenceWithPhrase("Quantenphysik", "de")).toBe(
      "Auch das Thema „Quantenphysik“ gehört in diesen Zusammenhang.",
    );
    expect(sentenceWithPhrase("量子物理", "ja")).toContain("「量子物理」");
    expect(sentenceWithPhrase("physique quantique", "xx")).toBe("The discussion also relates to physique quantique.");
    expect(sentenceWithPhrase("Bees matter.", "en")).toBe("Bees matter.");
  });

  it("sentences holding the phrases that alone exceed the length are cut around the phrases", () => {
    // One long line (no sentence ends): the phrases sit far apart in 2,000+ characters of one sentence.
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`);
    words[20] = "alpha beta";
    words[380] = "gamma delta";
    const text = words.join(" ");
    const s = ok(text, ["alpha beta", "gamma delta"], 1000);
    expect(s).toContain("…");
  });

  it("the desired length equal to the text's length returns (nearly) the whole text", () => {
    const text = heat.slice(0, 1400);
    const s = ok(text, ["urban heat island effect", "public health"], charCount(text));
    expect(charCount(s)).toBeGreaterThan(charCount(text) * 0.9);
  });

  it("a text of few, very long sentences is cut by words to fit", () => {
    const long = Array.from({ length: 6 }, (_, k) =>
      Array.from({ length: 90 }, (_, i) => `w${k}x${i}`).join(", "),
    ).join(". ");
    ok(`${long}.`, ["w0x1", "w5x3"], 1500);
  });

  it("a text padded with blank lines still lands within the bounds", () => {
    const text = heat.replace(/\n\n/g, "\n\n\n\n\n\n");
    ok(text, ["Paris", "street tree"], 2000);
  });

  it("is fast: 100,000 characters in well under two seconds", () => {
    let text = "";
    while (text.length < 100_000) text += `${heat}\n`;
    const started = performance.now();
    ok(text.slice(0, 100_000), ["Paris", "street tree"], 5000);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("titles and headings", () => {
  it("steering: quoted terms appear in titles, question style asks, list style numbers", () => {
    const q = titlesOffline({
      text: heat,
      numTitles: 4,
      numHeadings: 3,
      customPrompt: 'question titles with "cool roofs"',
    });
    expect(q.titles.some((t) => t.includes("cool roofs"))).toBe(true);
    expect(q.titles.filter((t) => t.endsWith("?")).length).toBeGreaterThanOrEqual(3);
    const l = titlesOffline({ text: heat, numTitles: 3, numHeadings: 3, customPrompt: "numbered list" });
    expect(l.headings.map((h) => h.slice(0, 3))).toEqual(["1. ", "2. ", "3. "]);
    expect(l.titles[0]).toMatch(/\d/);
  });

  it("steering: focus words from the request rank first", () => {
    const plain = titlesOffline({ text: heat, numTitles: 3, numHeadings: 2, customPrompt: "" });
    const focused = titlesOffline({ text: heat, numTitles: 3, numHeadings: 2, customPrompt: "focus on species" });
    expect(plain.titles[0].toLowerCase()).not.toContain("species");
    expect(focused.titles[0].toLowerCase()).toContain("species");
  });

  const bees = [
    "Bees are moving into the city. Urban hives now sit on many roofs in the city centre.",
    "Each hive needs flowers nearby, so the city plants more flowers in parks and on balconies.",
    "Beekeepers say city honey tastes of lime trees. Some hives produce more honey than rural hives.",
    "A warmer climate changes when flowers bloom, and bees have to adapt.",
    "The city hopes urban bees will help gardens and parks. Bees and flowers need each other.",
  ].join("\n");

  it("steering: a topic the text names only once still leads the titles and headings (focus on climate)", () => {
    const out = titlesOffline({ text: bees, numTitles: 3, numHeadings: 3, customPrompt: "focus on climate" });
    expect(out.titles[0].toLowerCase()).toContain("climate");
    expect([...parseSteering("focus on climate", "en").focus]).toEqual(["climate"]);
    expect([...parseSteering("Please focus on climate in the titles", "en").focus]).toEqual(["climate"]);
  });

  it("steering: a topic the text never names stays out of the titles (the request steers, it is not content)", () => {
    const out = titlesOffline({ text: bees, numTitles: 3, numHeadings: 3, customPrompt: "focus on tourism" });
    expect(out.titles.some((t) => t.toLowerCase().includes("tourism"))).toBe(false);
  });

  it("titles are headlines, not bare fragments like 'On hive' or a lone word", () => {
    for (const customPrompt of ["", "short titles"]) {
      const out = titlesOffline({ text: bees, numTitles: 4, numHeadings: 3, customPrompt });
      for (const title of out.titles) {
        expect([customPrompt, title, /^On \p{L}+$/u.test(title)]).toEqual([customPrompt, title, false]);
        expect([customPrompt, title, title.split(/\s+/u).length >= 2]).toEqual([customPrompt, title, true]);
      }
    }
  });

  it("steering works on Japanese requests too (短く → short titles)", () => {
    const ja = read("text-corpus/ja-article-remote.txt");
    const out = titlesOffline({
      text: ja,
      numTitles: 3,
      numHeadings: 2,
      customPrompt: "短く、二地域居住に焦点を当てて",
    });
    expect(parseSteering("短く", "ja").short).toBe(true);
    for (const t of out.titles) expect(charCount(t)).toBeLessThanOrEqual(20);
  });

  it("exact counts even with fewer lines than headings and more titles than phrases", () => {
    const text = "Solar panels on school roofs.";
    const out = titlesOffline({ text, numTitles: 20, numHeadings: 5, customPrompt: "" });
    expect(checkTitles(out, { numTitles: 20, numHeadings: 5 })).toEqual([]);
    expect(new Set(out.headings).size).toBe(5);
  });

  it("heading i names block i of ceil(lines / headings) lines", () => {
    const text = [
      "Volcanoes erupt when magma rises.",
      "Magma chambers fill over centuries.",
      "Volcanoes and magma shape islands.",
      "Bread needs flour, water and salt.",
      "Sourdough bread rises slowly overnight.",
      "Bread crust forms in a hot oven.",
    ].join("\n");
    const out = titlesOffline({ text, numTitles: 2, numHeadings: 2, customPrompt: "" });
    expect(headingBlocks(textLines(text).length, 2)).toEqual([
      { start: 0, end: 3 },
      { start: 3, end: 6 },
    ]);
    expect(out.headings[0]).toMatch(/volcano|magma/i);
    expect(out.headings[1]).toMatch(/bread|sourdough|flour/i);
  });
});

describe("checks", () => {
  it("name every failure", () => {
    const f = checkSummary("short text", { requiredPhrases: ["alpha", "text"], desiredLength: 1000 });
    expect(f.map((x) => x.kind)).toEqual(["missing_phrase", "too_short", "unfinished"]);
    expect(describeFailure(f[0])).toContain('"alpha"');
    const t = checkTitles({ titles: ["A", "a", " "], headings: ["x"] }, { numTitles: 2, numHeadings: 2 });
    expect(t.map((x) => x.kind).sort()).toEqual(["duplicate_title", "empty_title", "heading_count", "title_count"]);
  });
});
