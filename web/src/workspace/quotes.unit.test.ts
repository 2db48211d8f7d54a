import { describe, expect, it } from "@jest/globals";
import { quoteCitation, type TranscriptSegment } from "@kikitori/shared";
import { isBackChord, isPlayPauseChord } from "../job/usePlayer.ts";
import { parseTags } from "./QuoteItem.tsx";
import { insertTimestamp, isTimestampChord } from "./timestamp.ts";
import { editedSegments, selectionOf } from "./useTranscriptSelection.ts";

const key = (o: Partial<KeyboardEvent>) => ({
  ctrlKey: false,
  altKey: false,
  metaKey: false,
  key: "",
  code: "",
  ...o,
});

describe("player keys that work while typing", () => {
  it("Ctrl+, jumps back (not Ctrl+← or Alt+←, which text fields and the browser use)", () => {
    expect(isBackChord(key({ ctrlKey: true, key: ",", code: "Comma" }))).toBe(true);
    // A layout where the comma key gives another character still counts by its place.
    expect(isBackChord(key({ ctrlKey: true, key: ";", code: "Comma" }))).toBe(true);
    expect(isBackChord(key({ key: ",", code: "Comma" }))).toBe(false);
    expect(isBackChord(key({ ctrlKey: true, key: "ArrowLeft", code: "ArrowLeft" }))).toBe(false);
    expect(isBackChord(key({ altKey: true, key: "ArrowLeft", code: "ArrowLeft" }))).toBe(false);
  });

  it("Alt+Space plays or pauses too (where the system takes Ctrl+Space), not Ctrl+Alt+Space", () => {
    expect(isPlayPauseChord(key({ altKey: true, key: " ", code: "Space" }))).toBe(true);
    expect(isPlayPauseChord(key({ ctrlKey: true, key: " ", code: "Space" }))).toBe(true);
    expect(isPlayPauseChord(key({ ctrlKey: true, altKey: true, key: " ", code: "Space" }))).toBe(false);
    expect(isPlayPauseChord(key({ metaKey: true, altKey: true, key: " ", code: "Space" }))).toBe(false);
  });

  it("Ctrl+; inserts a timestamp", () => {
    expect(isTimestampChord(key({ ctrlKey: true, key: ";", code: "Semicolon" }))).toBe(true);
    expect(isTimestampChord(key({ key: ";", code: "Semicolon" }))).toBe(false);
  });
});

describe("insertTimestamp", () => {
  it("puts [mm:ss] at the caret with a space on each side where needed, the caret after it", () => {
    expect(insertTimestamp("Anna: Hello", 5, 5, 62.7)).toEqual({ text: "Anna: [01:02] Hello", caret: 14 });
    expect(insertTimestamp("", 0, 0, 5)).toEqual({ text: "[00:05] ", caret: 8 });
    expect(insertTimestamp("Hello world", 5, 5, 3725)).toEqual({ text: "Hello [01:02:05] world", caret: 17 });
    // A selection is replaced.
    expect(insertTimestamp("a XX b", 2, 4, 0).text).toBe("a [00:00] b");
  });
});

describe("a transcript selection as a quote range", () => {
  const segments: TranscriptSegment[] = [
    { start: 0, end: 2, text: "So how did it start?", speaker: 0 },
    { start: 2.5, end: 6, text: "It started in a garage.", speaker: 1 },
    { start: 6, end: 8, text: "友達と二人で。", speaker: 1 },
  ];

  it("words inside one line give their time range and the words a quote takes", () => {
    const text = segments[1].text;
    const sel = selectionOf({ first: 1, from: text.indexOf("in"), last: 1, to: text.length }, segments, "en");
    expect(sel?.text).toBe("in a garage.");
    expect(sel && sel.start > 2.5 && sel.end === 6).toBe(true);
  });

  it("lines dragged over by their times give the whole lines", () => {
    expect(selectionOf({ first: 0, from: 0, last: 1, to: null }, segments.slice(0, 2), "en")).toEqual({
      start: 0,
      end: 6,
      text: "So how did it start? It started in a garage.",
    });
  });

  it("an edited line is cut from its edited text", () => {
    const edited = editedSegments(segments, ["So how did it start?", "It began in a shed."]);
    expect(edited[1]).toMatchObject({ text: "It began in a shed.", start: 2.5 });
    const sel = selectionOf({ first: 1, from: 3, last: 1, to: 8 }, edited, "en");
    expect(sel?.text).toBe("began");
  });

  it("Japanese characters are taken exactly", () => {
    expect(selectionOf({ first: 2, from: 0, last: 2, to: 2 }, segments, "ja")?.text).toBe("友達");
  });

  it('copies as "…" — Name [mm:ss]; tags typed with commas', () => {
    expect(quoteCitation({ text: "in a garage.", speaker: "Ben", start: 3.4 }, "en")).toBe(
      '"in a garage." — Ben [00:03]',
    );
    expect(parseTags("lead, risk ,, 取材、原稿")).toEqual(["lead", "risk", "取材", "原稿"]);
  });
});
