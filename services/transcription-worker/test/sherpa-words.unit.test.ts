import { segmentsOfWords, windowsOf, wordsOfResult } from "../src/engines/sherpa-words.ts";

describe("wordsOfResult", () => {
  it("joins BPE pieces at their word starts and puts punctuation on the word before it", () => {
    const words = wordsOfResult(
      { tokens: [" Hel", "lo", ",", " wor", "ld", "."], timestamps: [0.1, 0.2, 0.3, 0.5, 0.6, 0.7] },
      10,
      5,
    );
    expect(words.map((w) => w.text)).toEqual(["Hello,", "world."]);
    expect(words[0]).toMatchObject({ start: 10.1, end: 10.5 });
    expect(words[1].start).toBeCloseTo(10.5);
    expect(words[1].end).toBeCloseTo(11.1);
  });

  it("takes SentencePiece's ▁ as a word start too, and each CJK character as a word", () => {
    const words = wordsOfResult({ tokens: ["東", "京", "は", "▁OK", "。"], timestamps: [0, 0.1, 0.2, 0.3, 0.4] }, 0, 1);
    expect(words.map((w) => [w.text, w.gap])).toEqual([
      ["東", ""],
      ["京", ""],
      ["は", ""],
      ["OK。", " "],
    ]);
  });

  it("uses the model's token durations where it gives them, and drops SenseVoice's tags", () => {
    const words = wordsOfResult(
      { tokens: ["<|ja|>", " a", " b"], timestamps: [0, 0.2, 0.4], durations: [0, 0.1, 0.3] },
      0,
      1,
    );
    expect(words).toEqual([
      { start: 0.2, end: expect.closeTo(0.3), text: "a", gap: "" },
      { start: 0.4, end: expect.closeTo(0.7), text: "b", gap: " " },
    ]);
  });

  it("keeps times inside the window", () => {
    const words = wordsOfResult({ tokens: [" late"], timestamps: [7] }, 2, 4);
    expect(words).toEqual([{ start: 6, end: 6, text: "late", gap: "" }]);
  });
});

describe("segmentsOfWords", () => {
  const w = (text: string, start: number, end: number, gap = " ") => ({ text, start, end, gap });

  it("ends a segment after a sentence's end and before a long pause; text trimmed, words inside", () => {
    const segs = segmentsOfWords([
      w("Hello", 0, 0.4, ""),
      w("there.", 0.5, 0.9),
      w("Next", 1.0, 1.2),
      w("one", 1.3, 1.5),
      w("later", 3.0, 3.4),
    ]);
    expect(segs.map((s) => s.text)).toEqual(["Hello there.", "Next one", "later"]);
    for (const s of segs) {
      expect(s.words?.[0].start).toBe(s.start);
      expect(s.words?.at(-1)?.end).toBe(s.end);
    }
  });

  it("joins CJK words without spaces and cuts segments longer than 20 s", () => {
    const words = Array.from({ length: 50 }, (_, i) => w("語", i * 0.5, i * 0.5 + 0.4, ""));
    const segs = segmentsOfWords(words);
    expect(segs.length).toBe(2);
    expect(segs[0].text).toBe("語".repeat(40));
    expect(segs.every((s) => s.end - s.start <= 20)).toBe(true);
  });

  it("answers nothing for no words", () => {
    expect(segmentsOfWords([])).toEqual([]);
  });
});

describe("windowsOf", () => {
  it("cuts a recording into equal windows of at most the given length", () => {
    expect(windowsOf(10, 28)).toEqual([{ start: 0, end: 10 }]);
    const ws = windowsOf(61, 28);
    expect(ws).toHaveLength(3);
    expect(ws[2].end).toBe(61);
    expect(ws.every((x) => x.end - x.start <= 28)).toBe(true);
  });
});
