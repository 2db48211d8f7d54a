import { addMonthsAnchored, daysInMonthUtc } from "../src/dates.ts";

const d = (s: string) => new Date(s);

describe("addMonthsAnchored", () => {
  it.each([
    ["2026-01-15T10:00:00.000Z", 1, 15, "2026-02-15T10:00:00.000Z"],
    ["2026-01-31T00:00:00.000Z", 1, 31, "2026-02-28T00:00:00.000Z"],
    ["2028-01-31T00:00:00.000Z", 1, 31, "2028-02-29T00:00:00.000Z"],
    ["2026-02-28T00:00:00.000Z", 1, 31, "2026-03-31T00:00:00.000Z"],
    ["2026-04-30T00:00:00.000Z", 1, 31, "2026-05-31T00:00:00.000Z"],
    ["2026-03-31T00:00:00.000Z", 1, 31, "2026-04-30T00:00:00.000Z"],
    ["2026-12-31T23:59:59.000Z", 1, 31, "2027-01-31T23:59:59.000Z"],
    ["2026-11-30T12:00:00.000Z", 1, 30, "2026-12-30T12:00:00.000Z"],
    ["2026-01-29T00:00:00.000Z", 1, 29, "2026-02-28T00:00:00.000Z"],
    ["2026-01-10T00:00:00.000Z", 12, 10, "2027-01-10T00:00:00.000Z"],
  ])("%s + %i month(s), anchor %i → %s", (from, months, anchor, expected) => {
    expect(addMonthsAnchored(d(from), months, anchor).toISOString()).toBe(expected);
  });

  it("defaults the anchor to the day of the start date", () => {
    expect(addMonthsAnchored(d("2026-05-20T08:00:00Z"), 1).toISOString()).toBe("2026-06-20T08:00:00.000Z");
  });

  it("knows month lengths including leap years", () => {
    expect([
      daysInMonthUtc(2026, 1),
      daysInMonthUtc(2028, 1),
      daysInMonthUtc(2100, 1),
      daysInMonthUtc(2000, 1),
    ]).toEqual([28, 29, 28, 29]);
  });
});
