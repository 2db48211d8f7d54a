import { describe, expect, it } from "@jest/globals";
import { formatAmount, formatDate } from "./format.ts";
import { isUsageHigh, usagePercent } from "./usage.ts";

describe("usage bars", () => {
  it.each([
    [0, 30, 0],
    [15, 30, 50],
    [24, 30, 80],
    [30, 30, 100],
    [45, 30, 100],
    [1, 0, 100],
    [0, 0, 0],
    [-1, 30, 0],
  ])("%d of %d → %d %%", (used, max, pct) => {
    expect(usagePercent(used, max)).toBeCloseTo(pct);
  });
  it("turns red above 80 %", () => {
    expect(isUsageHigh(80)).toBe(false);
    expect(isUsageHigh(80.1)).toBe(true);
    expect(isUsageHigh(100)).toBe(true);
  });
});

describe("formatting", () => {
  it("formats the reset date in the UI language as its UTC day", () => {
    expect(formatDate("2026-03-15T23:30:00.000Z", "en")).toBe("March 15, 2026");
    expect(formatDate("2026-03-15", "ja")).toBe("2026年3月15日");
  });
  it("returns unparseable dates unchanged", () => {
    expect(formatDate("soon", "en")).toBe("soon");
  });
  it("formats amounts", () => {
    expect(formatAmount(12.345, "en")).toBe("12.3");
    expect(formatAmount(1500, "de")).toBe("1.500");
  });
});
