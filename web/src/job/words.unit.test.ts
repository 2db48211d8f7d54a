import { describe, expect, it } from "@jest/globals";
import { approximateWords } from "@kikitori/shared";
import { wordAt, wordRuns } from "./words.ts";

const joined = (runs: { text: string }[]) => runs.map((r) => r.text).join("");

describe("wordRuns", () => {
  it("gives each engine word (without punctuation) its run; spaces and punctuation stay between", () => {
    const text = "Yes, I took all of it.";
    const words = ["Yes", "I", "took", "all", "of", "it"].map((w) => ({ text: w }));
    const runs = wordRuns(text, words);
    expect(joined(runs)).toBe(text);
    expect(runs.filter((r) => r.word !== null).map((r) => [r.word, r.text])).toEqual([
      [0, "Yes"],
      [1, "I"],
      [2, "took"],
      [3, "all"],
      [4, "of"],
      [5, "it"],
    ]);
    expect(runs[1]).toEqual({ text: ", ", word: null });
    expect(runs.at(-1)).toEqual({ text: ".", word: null });
  });

  it("finds estimated words (punctuation kept) and words of another case, in order", () => {
    const text = "Hello, hello world!";
    const runs = wordRuns(text, [{ text: "HELLO," }, { text: "hello" }, { text: "world!" }]);
    expect(joined(runs)).toBe(text);
    expect(runs.filter((r) => r.word !== null).map((r) => r.text)).toEqual(["Hello,", "hello", "world!"]);
  });

  it("cuts Japanese without spaces into its words", () => {
    const text = "今日は晴れです。";
    const words = approximateWords({ start: 0, end: 2, text }, "ja");
    const runs = wordRuns(text, words);
    expect(joined(runs)).toBe(text);
    expect(runs.filter((r) => r.word !== null).length).toBe(words.length);
    expect(words.length).toBeGreaterThan(1);
  });

  it("leaves a word it cannot find out and keeps the text whole", () => {
    const text = "It is twenty past four.";
    const runs = wordRuns(text, [{ text: "It" }, { text: "is" }, { text: "20" }, { text: "past" }, { text: "" }]);
    expect(joined(runs)).toBe(text);
    expect(runs.filter((r) => r.word !== null).map((r) => r.word)).toEqual([0, 1, 3]);
    expect(wordRuns("", [])).toEqual([]);
    expect(wordRuns("No words here", [])).toEqual([{ text: "No words here", word: null }]);
  });
});

describe("wordAt", () => {
  const words = [{ start: 1 }, { start: 1.4 }, { start: 2 }, { start: 2.75 }];
  it.each([
    [0.5, -1],
    [0.96, 0],
    [1, 0],
    [1.39, 1],
    [1.9, 1],
    [2, 2],
    [2.8, 3],
    [3.4, 3],
    [3.5, -1],
    [9, -1],
  ])("at %p s the word playing is %p (the line ends at 3.5 s)", (time, index) => {
    expect(wordAt(words, time, 3.5)).toBe(index);
  });

  it("finds the word in a long line by binary search", () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ({ start: i * 0.3 }));
    expect(wordAt(many, 0.3 * 12_345 + 0.1, 6000)).toBe(12_345);
    expect(wordAt(many, 5999.9, 6000)).toBe(19_999);
    expect(wordAt([], 1, 2)).toBe(-1);
  });
});
