import { describe, expect, it } from "@jest/globals";
import { cutGraphemes, EXPORT_FORMATS, EXPORT_NAME_MAX_GRAPHEMES, exportFileName } from "../src/export.ts";

/** True when the string has no lone surrogate (encodeURIComponent would throw on one). */
const wellFormed = (s: string) => {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
};

describe("export file names", () => {
  const max = EXPORT_NAME_MAX_GRAPHEMES;
  const emojis = ["😀", "👍🏽", "👩‍👩‍👧", "🇯🇵", "é" /* e + combining acute */, "𠮷"];

  it("never cuts inside an emoji, wherever it sits around the cut", () => {
    for (const emoji of emojis) {
      for (let pos = max - 4; pos <= max + 4; pos++) {
        const title = `${"a".repeat(pos)}${emoji}${"b".repeat(10)}`;
        for (const format of EXPORT_FORMATS) {
          const name = exportFileName(title, "transcript", format);
          expect(wellFormed(name)).toBe(true);
          const base = name.slice(0, -` – transcript.${format}`.length);
          // Whole graphemes only: the emoji is kept entire when it starts before the cut, else dropped.
          if (pos < max) expect(base).toBe(`${"a".repeat(pos)}${emoji}${"b".repeat(Math.min(10, max - pos - 1))}`);
          else expect(base).toBe("a".repeat(max));
        }
      }
    }
  });

  it("a title of emojis only keeps 120 of them", () => {
    const name = exportFileName("😀".repeat(200), "interview", "docx");
    expect(name).toBe(`${"😀".repeat(max)} – interview.docx`);
  });

  it("cuts by user-perceived characters", () => {
    expect(cutGraphemes("👩‍👩‍👧x", 1)).toBe("👩‍👩‍👧");
    expect(cutGraphemes("ab", 5)).toBe("ab");
    expect(cutGraphemes("ab", 0)).toBe("");
  });

  it("replaces a lone surrogate rather than passing it on", () => {
    const name = exportFileName("a\uD83Db", "transcript", "txt");
    expect(wellFormed(name)).toBe(true);
    expect(name).toBe("a\uFFFDb – transcript.txt");
  });
});
