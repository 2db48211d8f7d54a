// Proration and period tables (docs/decisions/0006-billing.md):
// amount = round_half_up((price_new − price_old) × unused_days / period_days) in the currency's
// minor unit; unused days run from today's UTC date to the reset date. Expected amounts below were
// worked out by hand, not with the code under test.
import { addMonthsAnchored, PLANS, type PlanName } from "@kikitori/shared";
import { rollPeriod } from "@kikitori/shared/server";
import { DEFAULT_PRICES } from "../src/config.ts";
import {
  changeKind,
  divRoundHalfUp,
  type Pricing,
  periodDays,
  priceTableFrom,
  prorate,
  quoteChange,
  toMajor,
  toMinor,
  unusedDays,
} from "../src/pricing.ts";

const d = (s: string) => new Date(s);
const pricing: Pricing = {
  prices: priceTableFrom({}, DEFAULT_PRICES),
  languageCurrency: { ja: "JPY" },
  defaultCurrency: "USD",
};

interface Period {
  name: string;
  start: string;
  reset: string;
  days: number;
}
const P31: Period = {
  name: "31-day month (Jan 2027)",
  start: "2027-01-01T09:00:00.000Z",
  reset: "2027-02-01T09:00:00.000Z",
  days: 31,
};
const P30: Period = {
  name: "30-day month (Apr 2027)",
  start: "2027-04-01T09:00:00.000Z",
  reset: "2027-05-01T09:00:00.000Z",
  days: 30,
};
const P28: Period = {
  name: "28-day month (Feb 2027)",
  start: "2027-02-01T09:00:00.000Z",
  reset: "2027-03-01T09:00:00.000Z",
  days: 28,
};
const P29: Period = {
  name: "29-day month (Feb 2028, leap)",
  start: "2028-02-01T09:00:00.000Z",
  reset: "2028-03-01T09:00:00.000Z",
  days: 29,
};
const A31: Period = {
  name: "day-31 anchor into Feb 2027",
  start: "2027-01-31T09:00:00.000Z",
  reset: "2027-02-28T09:00:00.000Z",
  days: 28,
};
const A31L: Period = {
  name: "day-31 anchor into Feb 2028 (leap)",
  start: "2028-01-31T09:00:00.000Z",
  reset: "2028-02-29T09:00:00.000Z",
  days: 29,
};

// [period, now, unused days, USD cents free→standard, free→premium, standard→premium, JPY yen (same order)]
type Row = [Period, string, number, [number, number, number], [number, number, number]];
const ROWS: Row[] = [
  // first day of the period: the whole difference
  [P31, "2027-01-01T12:00:00.000Z", 31, [1500, 3000, 1500], [1980, 3980, 2000]],
  [P30, "2027-04-01T09:00:00.000Z", 30, [1500, 3000, 1500], [1980, 3980, 2000]],
  [P28, "2027-02-01T23:59:59.000Z", 28, [1500, 3000, 1500], [1980, 3980, 2000]],
  [P29, "2028-02-01T10:00:00.000Z", 29, [1500, 3000, 1500], [1980, 3980, 2000]],
  [A31, "2027-01-31T10:00:00.000Z", 28, [1500, 3000, 1500], [1980, 3980, 2000]],
  [A31L, "2028-01-31T10:00:00.000Z", 29, [1500, 3000, 1500], [1980, 3980, 2000]],
  // the middle: 1500×16/31 = 774.19; 3000×16/31 = 1548.39; 1980×16/31 = 1021.94; 3980×16/31 = 2054.19; 2000×16/31 = 1032.26
  [P31, "2027-01-16T00:00:00.000Z", 16, [774, 1548, 774], [1022, 2054, 1032]],
  [P30, "2027-04-16T15:00:00.000Z", 15, [750, 1500, 750], [990, 1990, 1000]],
  [P28, "2027-02-15T08:00:00.000Z", 14, [750, 1500, 750], [990, 1990, 1000]],
  // 1500×15/29 = 775.86; 3000×15/29 = 1551.72; 1980×15/29 = 1024.14; 3980×15/29 = 2058.62; 2000×15/29 = 1034.48
  [P29, "2028-02-15T08:00:00.000Z", 15, [776, 1552, 776], [1024, 2059, 1034]],
  [A31, "2027-02-14T00:00:00.000Z", 14, [750, 1500, 750], [990, 1990, 1000]],
  // last day: one unused day. 1500/31 = 48.39; 3000/31 = 96.77; 1980/31 = 63.87; 3980/31 = 128.39; 2000/31 = 64.52
  [P31, "2027-01-31T23:00:00.000Z", 1, [48, 97, 48], [64, 128, 65]],
  // 1500/30 = 50; 3000/30 = 100; 1980/30 = 66; 3980/30 = 132.67; 2000/30 = 66.67
  [P30, "2027-04-30T00:00:00.000Z", 1, [50, 100, 50], [66, 133, 67]],
  // 1500/28 = 53.57; 3000/28 = 107.14; 1980/28 = 70.71; 3980/28 = 142.14; 2000/28 = 71.43
  [P28, "2027-02-28T12:00:00.000Z", 1, [54, 107, 54], [71, 142, 71]],
  // 1500/29 = 51.72; 3000/29 = 103.45; 1980/29 = 68.28; 3980/29 = 137.24; 2000/29 = 68.97
  [P29, "2028-02-29T12:00:00.000Z", 1, [52, 103, 52], [68, 137, 69]],
  [A31L, "2028-02-28T23:59:00.000Z", 1, [52, 103, 52], [68, 137, 69]],
  // the reset day itself, before the reset time: nothing left to charge
  [P31, "2027-02-01T08:59:59.000Z", 0, [0, 0, 0], [0, 0, 0]],
];

const UPGRADES: Array<[PlanName, PlanName]> = [
  ["free", "standard"],
  ["free", "premium"],
  ["standard", "premium"],
];
const MIN = { USD: 50, JPY: 50 };

describe("proration of upgrades", () => {
  const cases = ROWS.flatMap(([p, now, unused, usd, jpy]) =>
    UPGRADES.flatMap(([from, to], i) => [
      [p.name, now, from, to, "USD", unused, p.days, usd[i]] as const,
      [p.name, now, from, to, "JPY", unused, p.days, jpy[i]] as const,
    ]),
  );
  it.each(cases)("%s, %s: %s → %s in %s", (pname, now, from, to, currency, unused, days, expected) => {
    const p = [P31, P30, P28, P29, A31, A31L].find((x) => x.name === pname)!;
    const q = quoteChange({
      from,
      to,
      currency,
      pricing,
      now: d(now),
      periodStart: d(p.start),
      resetDate: d(p.reset),
    });
    expect(q).toMatchObject({ kind: "upgrade", unusedDays: unused, periodDays: days, proratedMinor: expected });
    // Below the card networks' minimum (USD 0.50, JPY 50) nothing is charged.
    expect(q.chargeMinor).toBe(expected >= MIN[currency] ? expected : 0);
    expect(q.effectiveAt.toISOString()).toBe(d(now).toISOString());
  });
});

describe("every pair of plans", () => {
  const pairs = PLANS.flatMap((from) => PLANS.map((to) => [from, to] as const));
  const expectedKind = (from: PlanName, to: PlanName) =>
    from === to ? "same" : PLANS.indexOf(to) > PLANS.indexOf(from) ? "upgrade" : "downgrade";

  it.each(pairs)("%s → %s: kind, amount and effective date", (from, to) => {
    for (const currency of ["USD", "JPY"]) {
      const q = quoteChange({
        from,
        to,
        currency,
        pricing,
        now: d("2027-04-11T10:00:00.000Z"),
        periodStart: d(P30.start),
        resetDate: d(P30.reset),
      });
      expect(changeKind(from, to)).toBe(expectedKind(from, to));
      expect(q.kind).toBe(expectedKind(from, to));
      if (q.kind === "upgrade") {
        // 20 of 30 days unused: two thirds of the difference
        const diff = { USD: { standard: 1500, premium: 3000 }, JPY: { standard: 1980, premium: 3980 } }[currency]!;
        const old = from === "free" ? 0 : diff[from];
        expect(q.proratedMinor).toBe(Math.round(((diff[to as "standard" | "premium"] - old) * 20) / 30));
        expect(q.effectiveAt.toISOString()).toBe("2027-04-11T10:00:00.000Z");
      } else {
        // downgrades and switches to free are scheduled for the reset date and charge nothing
        expect([q.proratedMinor, q.chargeMinor]).toEqual([0, 0]);
        expect(q.effectiveAt.toISOString()).toBe(P30.reset);
      }
    }
  });
});

describe("currency rounding", () => {
  it("rounds half up in the minor unit", () => {
    expect([divRoundHalfUp(5, 2), divRoundHalfUp(7, 2), divRoundHalfUp(1, 4), divRoundHalfUp(3, 4)]).toEqual([
      3, 4, 0, 1,
    ]);
    // 45 cents × 15/30 = 22.5 cents → 23; ¥1 × 15/30 = ¥0.5 → ¥1; ¥1 × 14/30 → ¥0
    expect([prorate(45, 15, 30), prorate(1, 15, 30), prorate(1, 14, 30)]).toEqual([23, 1, 0]);
    expect(prorate(-100, 10, 30)).toBe(0);
  });

  it("converts major and minor units per currency (JPY has no minor unit)", () => {
    expect([toMinor("15", "USD"), toMinor("9.99", "USD"), toMinor("9.5", "USD"), toMinor("1980", "JPY")]).toEqual([
      1500, 999, 950, 1980,
    ]);
    expect([toMajor(964, "USD"), toMajor(1500, "USD"), toMajor(1022, "JPY"), toMajor(5, "USD")]).toEqual([
      9.64, 15, 1022, 0.05,
    ]);
    expect(() => toMinor("1980.5", "JPY")).toThrow(/0 decimal places/);
    expect(() => toMinor("1.999", "USD")).toThrow(/2 decimal places/);
    expect(() => toMinor("-3", "USD")).toThrow(/not a price/);
  });
});

describe("period dates", () => {
  // anchor day → successive reset dates, crossing 28/29/30/31-day months
  const SEQUENCES: Array<[number, string, string[]]> = [
    [
      31,
      "2027-01-31T09:00:00.000Z",
      ["2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31", "2027-06-30", "2027-07-31", "2027-08-31"],
    ],
    [31, "2027-12-31T09:00:00.000Z", ["2028-01-31", "2028-02-29", "2028-03-31", "2028-04-30"]],
    [30, "2027-01-30T09:00:00.000Z", ["2027-02-28", "2027-03-30", "2027-04-30"]],
    [29, "2028-01-29T09:00:00.000Z", ["2028-02-29", "2028-03-29"]],
    [29, "2027-01-29T09:00:00.000Z", ["2027-02-28", "2027-03-29"]],
    [1, "2027-12-01T09:00:00.000Z", ["2028-01-01", "2028-02-01", "2028-03-01"]],
  ];
  it.each(SEQUENCES)("anchor %i from %s", (anchor, start, expected) => {
    let at = d(start);
    const got: string[] = [];
    for (let i = 0; i < expected.length; i++) {
      at = addMonthsAnchored(at, 1, anchor);
      got.push(at.toISOString().slice(0, 10));
      expect(at.toISOString().slice(10)).toBe("T09:00:00.000Z");
    }
    expect(got).toEqual(expected);
  });

  it("counts period days for 28/29/30/31-day periods and unused days from today's UTC date", () => {
    expect([P28, P29, P30, P31, A31, A31L].map((p) => periodDays(d(p.start), d(p.reset)))).toEqual([
      28, 29, 30, 31, 28, 29,
    ]);
    const [s, r] = [d(P31.start), d(P31.reset)];
    expect(unusedDays(d("2027-01-01T00:00:00.000Z"), s, r)).toBe(31); // before the start time, same date
    expect(unusedDays(d("2026-12-25T00:00:00.000Z"), s, r)).toBe(31); // clamped
    expect(unusedDays(d("2027-01-31T23:59:59.999Z"), s, r)).toBe(1);
    expect(unusedDays(d("2027-02-01T00:00:00.000Z"), s, r)).toBe(0);
    expect(unusedDays(d("2027-02-05T00:00:00.000Z"), s, r)).toBe(0);
  });

  it("rolls a period by whole anchored months, the reset date always after now", () => {
    const r = rollPeriod(
      { periodStart: d("2027-12-31T09:00:00.000Z"), resetDate: d("2028-01-31T09:00:00.000Z"), anchorDay: 31 },
      d("2028-03-01T00:00:00.000Z"),
    );
    expect([r.periodStart.toISOString(), r.resetDate.toISOString(), r.months]).toEqual([
      "2028-02-29T09:00:00.000Z",
      "2028-03-31T09:00:00.000Z",
      2,
    ]);
  });
});
