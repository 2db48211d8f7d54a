import { describe, expect, it } from "@jest/globals";
import { audioPercent, etaParts, formatClock, isoDuration, remainingEta } from "./time.ts";

describe("formatClock", () => {
  it("m:ss under an hour, h:mm:ss from an hour, fractions cut", () => {
    expect(formatClock(0, "en")).toBe("0:00");
    expect(formatClock(150.9, "en")).toBe("2:30");
    expect(formatClock(600, "en")).toBe("10:00");
    expect(formatClock(3723, "en")).toBe("1:02:03");
  });

  it("pads the minutes for transcript timestamps", () => {
    expect(formatClock(150, "en", { padMinutes: true })).toBe("02:30");
    expect(formatClock(3723, "en", { padMinutes: true })).toBe("1:02:03");
  });

  it("uses the interface language's digits and survives junk", () => {
    expect(formatClock(150, "fa")).toBe("۲:۳۰");
    expect(formatClock(-5, "en")).toBe("0:00");
    expect(formatClock(Number.NaN, "en")).toBe("0:00");
  });
});

describe("etaParts", () => {
  it("hides a missing or spent estimate", () => {
    expect(etaParts(null)).toBeNull();
    expect(etaParts(undefined)).toBeNull();
    expect(etaParts(0)).toBeNull();
    expect(etaParts(Number.NaN)).toBeNull();
  });

  it("seconds in steps of 5 under a minute, else whole minutes (at least 1)", () => {
    expect(etaParts(1)).toEqual({ unit: "seconds", count: 5 });
    expect(etaParts(12)).toEqual({ unit: "seconds", count: 15 });
    expect(etaParts(50)).toEqual({ unit: "seconds", count: 50 });
    expect(etaParts(55)).toEqual({ unit: "minutes", count: 1 });
    expect(etaParts(89)).toEqual({ unit: "minutes", count: 1 });
    expect(etaParts(90)).toEqual({ unit: "minutes", count: 2 });
    expect(etaParts(3600)).toEqual({ unit: "minutes", count: 60 });
  });
});

describe("audio helpers", () => {
  it("percent of the recording done, null without a length", () => {
    expect(audioPercent(150, 600)).toBe(25);
    expect(audioPercent(700, 600)).toBe(100);
    expect(audioPercent(10, 0)).toBeNull();
  });

  it("ISO durations for <time datetime>", () => {
    expect(isoDuration(150)).toBe("PT150S");
    expect(isoDuration(12.3456)).toBe("PT12.346S");
    expect(isoDuration(-1)).toBe("PT0S");
  });
});

describe("remainingEta", () => {
  it("counts down from the server's estimate but never to nothing while work is left", () => {
    expect(remainingEta(30, 10)).toBe(20);
    expect(remainingEta(30, 45)).toBe(1);
    expect(etaParts(remainingEta(30, 45))).toEqual({ unit: "seconds", count: 5 });
    expect(remainingEta(null, 3)).toBeNull();
    expect(remainingEta(0, 0)).toBeNull();
  });
});
