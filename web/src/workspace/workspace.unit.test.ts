import { describe, expect, it } from "@jest/globals";
import { findMatches, stepMatch } from "../job/find.ts";
import { formatRate } from "../job/format.ts";
import { activeSegment, isPlayPauseChord, storedRate } from "../job/usePlayer.ts";
import { cleanDirty, editBody } from "./useJobEditor.ts";
import { versionOrdinals, versionTime } from "./versions.ts";

describe("editBody", () => {
  const values = {
    title: "  Interview with Ben ",
    segments: ["a", "b", "c"],
    speakers: [0, undefined, 1],
    interview: "Anna: Hi",
  };

  it("sends only what changed, with the version it is based on", () => {
    const dirty = cleanDirty();
    expect(editBody(3, values, dirty)).toBeNull();
    dirty.segments.add(2);
    dirty.segments.add(0);
    expect(editBody(3, values, dirty)).toEqual({
      version: 3,
      segments: [
        { index: 0, text: "a", speaker: 0 },
        { index: 2, text: "c", speaker: 1 },
      ],
    });
    dirty.title = true;
    dirty.interview = true;
    expect(editBody(4, values, dirty)).toMatchObject({
      version: 4,
      title: "Interview with Ben",
      rewrittenText: "Anna: Hi",
    });
  });

  it("an emptied title goes back to the file name (null)", () => {
    expect(editBody(1, { ...values, title: "  " }, { ...cleanDirty(), title: true })).toEqual({
      version: 1,
      title: null,
    });
  });
});

describe("activeSegment", () => {
  const starts = [0, 4.5, 10.1, 20];
  it.each([
    [-1, -1],
    [0, 0],
    [4.44, 0],
    [4.46, 1],
    [10.1, 2],
    [15, 2],
    [99, 3],
  ])("at %s s → segment %s", (time, index) => {
    expect(activeSegment(starts, time)).toBe(index);
  });
  it("none without segments", () => {
    expect(activeSegment([], 3)).toBe(-1);
  });
});

describe("findMatches / stepMatch", () => {
  const texts = ["We opened a Bakery.", "大阪でパン屋を始めました。", "The ＢＡＫＥＲＹ grew.", "Nothing here."];
  it("finds case-insensitively, full-width folded, in any script", () => {
    expect(findMatches(texts, "bakery")).toEqual([0, 2]);
    expect(findMatches(texts, "パン屋")).toEqual([1]);
    expect(findMatches(texts, "  ")).toEqual([]);
    expect(findMatches(texts, "zebra")).toEqual([]);
  });
  it("steps forward and back, wrapping around", () => {
    expect(stepMatch(-1, 3, 1)).toBe(0);
    expect(stepMatch(-1, 3, -1)).toBe(2);
    expect(stepMatch(2, 3, 1)).toBe(0);
    expect(stepMatch(0, 3, -1)).toBe(2);
    expect(stepMatch(0, 0, 1)).toBe(-1);
  });
});

describe("versions", () => {
  it("are numbered 1, 2, 3… without gaps, oldest first", () => {
    const shown = versionOrdinals([{ version: 7 }, { version: 4 }, { version: 3 }, { version: 1 }]);
    expect([1, 3, 4, 7].map((v) => shown.get(v))).toEqual([1, 2, 3, 4]);
  });

  it("the original keeps the time it was made; an edit shows its last save", () => {
    const times = { createdAt: "2026-01-01T10:00:00Z", updatedAt: "2026-01-01T11:00:00Z" };
    expect(versionTime({ kind: "original", ...times })).toBe(times.createdAt);
    expect(versionTime({ kind: "edit", ...times })).toBe(times.updatedAt);
  });
});

describe("player speed and keys", () => {
  it("keeps a chosen speed only when it is one of the offered ones", () => {
    const store = (v: string | null) => ({ getItem: () => v });
    expect(storedRate(store("1.5"))).toBe(1.5);
    expect(storedRate(store("3"))).toBe(1);
    expect(storedRate(store(null))).toBe(1);
    expect(storedRate(null)).toBe(1);
    expect(formatRate(0.75, "en")).toBe("0.75×");
    expect(formatRate(1.5, "de")).toBe("1,5×");
  });

  it("takes Ctrl+Space as play/pause, not Space alone or with other modifiers", () => {
    const k = (o: Partial<KeyboardEvent>) =>
      isPlayPauseChord({ ctrlKey: false, altKey: false, metaKey: false, key: " ", code: "Space", ...o });
    expect(k({ ctrlKey: true })).toBe(true);
    expect(k({})).toBe(false);
    expect(k({ ctrlKey: true, altKey: true })).toBe(false);
    expect(k({ ctrlKey: true, key: "a", code: "KeyA" })).toBe(false);
  });
});
