import { describe, expect, it } from "@jest/globals";
import {
  addPhraseRow,
  composeArticle,
  intOf,
  nextSummaryProgress,
  placeHeadings,
  progressTone,
  removePhraseRow,
  suggestedSummaryLength,
} from "./logic.ts";

describe("the suggested summary length follows the text", () => {
  it("is about a third of the text, in tens, within 100–10,000 and never longer than the text", () => {
    // "Summarise this interview" on a 782-character text: no longer the default 3002.
    expect(suggestedSummaryLength(782)).toBe(260);
    expect(suggestedSummaryLength(3000)).toBe(1000);
    expect(suggestedSummaryLength(3743)).toBe(1250);
    expect(suggestedSummaryLength(250)).toBe(100);
    // Shorter than the minimum: nothing fits both rules; the form shows the minimum and explains.
    expect(suggestedSummaryLength(90)).toBe(100);
    expect(suggestedSummaryLength(200_000)).toBe(10_000);
    for (let n = 1; n < 40_000; n += 97) {
      const s = suggestedSummaryLength(n);
      if (n >= 100) expect(s).toBeLessThanOrEqual(Math.min(n, 10_000));
      expect(s).toBeGreaterThanOrEqual(100);
    }
  });

  it("with no text yet it is the spec's default", () => {
    expect(suggestedSummaryLength(0)).toBe(3002);
  });
});

describe("summary progress", () => {
  it("rises by 1 up to 98", () => {
    let v = 0;
    for (let s = 0; s < 200; s++) v = nextSummaryProgress(v);
    expect(v).toBe(98);
    expect(nextSummaryProgress(41)).toBe(42);
  });
  it("tone: neutral while generating, success when done, error only on failure", () => {
    expect(progressTone("generating")).toBe("running");
    expect(progressTone("done")).toBe("done");
    expect(progressTone("failed")).toBe("failed");
  });
});

describe("phrase rows", () => {
  it("start with two, keep at least two, stop at twenty", () => {
    expect(removePhraseRow(["a", "b"], 0)).toEqual(["a", "b"]);
    expect(removePhraseRow(["a", "b", "c"], 1)).toEqual(["a", "c"]);
    expect(addPhraseRow(["a", "b"])).toEqual(["a", "b", ""]);
    expect(addPhraseRow(Array(20).fill("x"))).toHaveLength(20);
  });
});

describe("number fields", () => {
  it("integers only", () => {
    expect(intOf(" 3002 ")).toBe(3002);
    expect(intOf("-1")).toBe(-1);
    expect(intOf("1.5")).toBeNaN();
    expect(intOf("")).toBeNaN();
  });
});

describe("heading placement", () => {
  const text = ["l1", "l2", "l3", "l4", "l5"].join("\n");
  it("a heading at the start of each block of ceil(lines / headings) lines", () => {
    expect(placeHeadings(text, ["A", "B"])).toEqual([
      { kind: "heading", index: 0, text: "A" },
      { kind: "lines", text: "l1\nl2\nl3" },
      { kind: "heading", index: 1, text: "B" },
      { kind: "lines", text: "l4\nl5" },
    ]);
  });
  it("headings without a block follow the text", () => {
    const parts = placeHeadings("only\nlines", ["A", "B", "C"]);
    expect(parts.filter((p) => p.kind === "heading").map((p) => p.text)).toEqual(["A", "B", "C"]);
    expect(parts.at(-1)).toEqual({ kind: "heading", index: 2, text: "C" });
  });
  it("composes plain text for copying", () => {
    expect(composeArticle(text, ["A", "B"])).toBe("■ A\n\nl1\nl2\nl3\n\n■ B\n\nl4\nl5");
  });
});
