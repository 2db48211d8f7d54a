import { describe, expect, it } from "@jest/globals";
import { approximateWords, type TranscriptSegment, withWords, wordPieces, wordsMatch } from "../src/index.ts";

describe("word times", () => {
  it("spreads a segment's time over its words by length, punctuation kept with the word before", () => {
    const words = approximateWords({ start: 10, end: 13, text: "Yes, I took all of it." }, "en");
    expect(words.map((w) => w.text)).toEqual(["Yes,", "I", "took", "all", "of", "it."]);
    expect(words[0].start).toBe(10);
    expect(words.at(-1)?.end).toBe(13);
    for (const [i, w] of words.entries()) {
      expect(w.approximate).toBe(true);
      expect(w.end).toBeGreaterThan(w.start);
      if (i > 0) expect(w.start).toBe(words[i - 1].end);
    }
    // Longer words take longer.
    expect(words[2].end - words[2].start).toBeGreaterThan(words[1].end - words[1].start);
  });

  it("finds words in Japanese (no spaces) and gives the text back when joined", () => {
    const text = "父がパン屋をやっていました。";
    const pieces = wordPieces(text, "ja");
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join("")).toBe(text);
    const words = approximateWords({ start: 0, end: 4, text }, "ja");
    expect(words.map((w) => w.text).join("")).toBe(text);
  });

  it("keeps the engine's word times while they spell the text, else spreads them", () => {
    const seg: TranscriptSegment = {
      start: 0,
      end: 2,
      text: "Hello, world.",
      words: [
        { start: 0.1, end: 0.6, text: "hello" },
        { start: 0.9, end: 1.7, text: "world" },
      ],
    };
    expect(wordsMatch(seg)).toBe(true);
    expect(withWords(seg, "en")).toBe(seg);
    const edited = withWords({ ...seg, text: "Hello, wide world." }, "en");
    expect(edited.words?.map((w) => w.text)).toEqual(["Hello,", "wide", "world."]);
    expect(edited.words?.every((w) => w.approximate)).toBe(true);
    const empty: TranscriptSegment = { start: 0, end: 1, text: "" };
    expect(withWords(empty, "en").words).toEqual([]);
  });
});
