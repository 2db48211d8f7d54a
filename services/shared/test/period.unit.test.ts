import { rollPeriod } from "../src/server/period.ts";

const d = (s: string) => new Date(s);
const roll = (periodStart: string, resetDate: string, anchorDay: number, now: string) => {
  const r = rollPeriod({ periodStart: d(periodStart), resetDate: d(resetDate), anchorDay }, d(now));
  return [r.periodStart.toISOString(), r.resetDate.toISOString(), r.months];
};

describe("rollPeriod", () => {
  it("leaves a current period alone", () => {
    expect(roll("2027-01-10T00:00:00Z", "2027-02-10T00:00:00Z", 10, "2027-02-09T23:59:59.999Z")).toEqual([
      "2027-01-10T00:00:00.000Z",
      "2027-02-10T00:00:00.000Z",
      0,
    ]);
  });

  it("resets exactly at the reset instant", () => {
    expect(roll("2027-01-10T00:00:00Z", "2027-02-10T00:00:00Z", 10, "2027-02-10T00:00:00Z")).toEqual([
      "2027-02-10T00:00:00.000Z",
      "2027-03-10T00:00:00.000Z",
      1,
    ]);
  });

  it.each([
    // day-31 anchor through February (non-leap and leap) and back to 31
    [
      "2026-12-31T09:00:00Z",
      "2027-01-31T09:00:00Z",
      31,
      "2027-02-01T00:00:00Z",
      "2027-01-31T09:00:00.000Z",
      "2027-02-28T09:00:00.000Z",
      1,
    ],
    [
      "2027-01-31T09:00:00Z",
      "2027-02-28T09:00:00Z",
      31,
      "2027-03-01T00:00:00Z",
      "2027-02-28T09:00:00.000Z",
      "2027-03-31T09:00:00.000Z",
      1,
    ],
    [
      "2027-12-31T00:00:00Z",
      "2028-01-31T00:00:00Z",
      31,
      "2028-02-01T00:00:00Z",
      "2028-01-31T00:00:00.000Z",
      "2028-02-29T00:00:00.000Z",
      1,
    ],
    [
      "2028-01-31T00:00:00Z",
      "2028-02-29T00:00:00Z",
      31,
      "2028-02-29T00:00:00Z",
      "2028-02-29T00:00:00.000Z",
      "2028-03-31T00:00:00.000Z",
      1,
    ],
    // a day-30 anchor is not dragged down to 28 for good after February
    [
      "2027-01-30T00:00:00Z",
      "2027-02-28T00:00:00Z",
      30,
      "2027-03-01T00:00:00Z",
      "2027-02-28T00:00:00.000Z",
      "2027-03-30T00:00:00.000Z",
      1,
    ],
    // several missed months at once
    [
      "2026-10-31T00:00:00Z",
      "2026-11-30T00:00:00Z",
      31,
      "2027-03-05T00:00:00Z",
      "2027-02-28T00:00:00.000Z",
      "2027-03-31T00:00:00.000Z",
      4,
    ],
    // across a year end
    [
      "2026-11-15T06:30:00Z",
      "2026-12-15T06:30:00Z",
      15,
      "2027-01-20T00:00:00Z",
      "2027-01-15T06:30:00.000Z",
      "2027-02-15T06:30:00.000Z",
      2,
    ],
  ])("%s..%s anchor %i at %s → %s..%s (%i)", (start, reset, anchor, now, expStart, expReset, months) => {
    expect(roll(start, reset, anchor as number, now)).toEqual([expStart, expReset, months]);
  });

  it("falls back to the reset date's day for an invalid anchor", () => {
    expect(roll("2027-01-12T00:00:00Z", "2027-02-12T00:00:00Z", 0, "2027-02-13T00:00:00Z")).toEqual([
      "2027-02-12T00:00:00.000Z",
      "2027-03-12T00:00:00.000Z",
      1,
    ]);
  });
});
