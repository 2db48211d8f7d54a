// Spec section 5's rules for the summary and title calls (shared by the gateway and the web app).
import { describe, expect, it } from "@jest/globals";
import {
  charCount,
  checkSummaryRequest,
  checkTitlesRequest,
  ERROR_CODES,
  headingBlocks,
  nonEmptyPhrases,
  phrasesMissingFrom,
  SUMMARY_LENGTH_DEFAULT,
  SUMMARY_LENGTH_MIN,
  textLines,
} from "../src/index.ts";

const text = "x".repeat(3000);
const ok = { text, requiredPhrases: ["alpha", "beta"], desiredLength: 3000 };
const code = (v: { code: string } | null) => v?.code ?? null;

describe("summary rules", () => {
  it("accepts a valid request, with the desired length equal to the text's length", () => {
    expect(checkSummaryRequest(ok)).toBeNull();
  });
  it.each([
    [{ text: " \n\t" }, "TEXT_BLANK"],
    [{ text: "y".repeat(200_001) }, "TEXT_TOO_LONG"],
    [{ desiredLength: 99 }, "DESIRED_LENGTH_OUT_OF_RANGE"],
    [{ desiredLength: 10_001 }, "DESIRED_LENGTH_OUT_OF_RANGE"],
    [{ desiredLength: 1500.5 }, "DESIRED_LENGTH_OUT_OF_RANGE"],
    [{ desiredLength: 3001 }, "DESIRED_LENGTH_TOO_LONG"],
    [{ requiredPhrases: ["alpha", ""] }, "REQUIRED_PHRASES_MISSING"],
    [{ requiredPhrases: [] }, "REQUIRED_PHRASES_MISSING"],
    [{ requiredPhrases: Array.from({ length: 21 }, (_, i) => `p${i}`) }, "REQUIRED_PHRASES_TOO_MANY"],
    [{ requiredPhrases: ["alpha", "b".repeat(201)] }, "REQUIRED_PHRASE_TOO_LONG"],
    [
      { desiredLength: 1000, requiredPhrases: Array.from({ length: 6 }, (_, i) => `${i}`.repeat(180)) },
      "REQUIRED_PHRASES_EXCEED_LENGTH",
    ],
  ])("%j → %s", (over, expected) => {
    expect(code(checkSummaryRequest({ ...ok, ...over }))).toBe(expected);
    expect(ERROR_CODES[expected as keyof typeof ERROR_CODES]).toBe(400);
  });
  it("counts characters, not UTF-16 units", () => {
    const emoji = "😀".repeat(1000);
    expect(charCount(emoji)).toBe(1000);
    expect(checkSummaryRequest({ ...ok, text: emoji, desiredLength: 1000 })).toBeNull();
  });
  it("required phrases: trimmed, non-empty, each once", () => {
    expect(nonEmptyPhrases([" a ", "", "b", "a", "  "])).toEqual(["a", "b"]);
  });
  it("a short interview can be summarised: lengths from 100 characters, default still 3002", () => {
    expect([SUMMARY_LENGTH_MIN, SUMMARY_LENGTH_DEFAULT]).toEqual([100, 3002]);
    const short = { text: "z".repeat(400), requiredPhrases: ["zz", "zzz"] };
    expect(checkSummaryRequest({ ...short, desiredLength: 100 })).toBeNull();
    expect(code(checkSummaryRequest({ ...short, desiredLength: 401 }))).toBe("DESIRED_LENGTH_TOO_LONG");
  });
  it("names the required phrases the source does not contain verbatim", () => {
    const source = "Bees in the city. Urban beekeeping grows.";
    expect(phrasesMissingFrom(source, ["Bees", " quantum physics ", "", "urban", "city"])).toEqual([
      "quantum physics",
      "urban",
    ]);
  });
});

describe("title rules", () => {
  const base = { originalText: "Some text", numHeadingsPerArticle: 3, numTitles: 3, customPrompt: "" };
  it.each([
    [{}, null],
    [{ originalText: "  " }, "TEXT_BLANK"],
    [{ numHeadingsPerArticle: 0 }, "COUNT_TOO_LOW"],
    [{ numTitles: 0 }, "COUNT_TOO_LOW"],
    [{ numTitles: 21 }, "COUNT_TOO_HIGH"],
    [{ numHeadingsPerArticle: 51 }, "COUNT_TOO_HIGH"],
    [{ customPrompt: "c".repeat(1001) }, "CUSTOM_PROMPT_TOO_LONG"],
    [{ customPrompt: null }, null],
  ])("%j → %s", (over, expected) => {
    expect(code(checkTitlesRequest({ ...base, ...over }))).toBe(expected);
  });
});

describe("heading placement", () => {
  it("blocks of ceil(lines / headings) lines", () => {
    expect(headingBlocks(10, 3)).toEqual([
      { start: 0, end: 4 },
      { start: 4, end: 8 },
      { start: 8, end: 10 },
    ]);
    expect(headingBlocks(2, 5)).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 2 },
    ]);
    expect(headingBlocks(0, 3)).toEqual([]);
  });
  it("trailing blank lines do not count", () => {
    expect(textLines("a\nb\r\nc\n\n\n")).toEqual(["a", "b", "c"]);
  });
});
