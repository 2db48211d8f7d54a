// The plan catalogue (services/shared/src/plans.ts) is the one place that knows the plans: a test
// catalogue with a fourth plan, "pro" between standard and premium, must carry through to the quota
// settings and limits, the price settings and table, upgrade/downgrade rules and proration in
// billing, and the plan screen's rules in the web app.
import { definePlans, PAID_PLANS, PLAN_CATALOGUE, PLANS, planSchema } from "@kikitori/shared";
import { countLimit, planEnv, quotasFromConfig } from "@kikitori/shared/server";
import { z } from "zod";
import { DEFAULT_PRICES } from "../../services/billing/src/config.ts";
import {
  changeKind,
  defaultPriceSettings,
  type Pricing,
  planOffers,
  priceTableFrom,
  quoteChange,
} from "../../services/billing/src/pricing.ts";
import {
  isPaidPlan,
  PLAN_ORDER,
  planChange,
  planRank,
  priceDifference,
  sortPlans,
} from "../../web/src/plan/pricing.ts";

const TEST = definePlans([
  { name: "free", paid: false, quotas: { maxMinutes: 30, maxSummaries: 3, maxTitleRuns: 3 }, prices: {} },
  {
    name: "standard",
    paid: true,
    quotas: { maxMinutes: 600, maxSummaries: 100, maxTitleRuns: 100 },
    prices: { USD: "15", JPY: "1980" },
  },
  {
    name: "pro",
    paid: true,
    quotas: { maxMinutes: 1200, maxSummaries: 250, maxTitleRuns: 200 },
    prices: { USD: "22.50", JPY: "2980" },
  },
  {
    name: "premium",
    paid: true,
    quotas: { maxMinutes: 1800, maxSummaries: 500, maxTitleRuns: 500 },
    prices: { USD: "30", JPY: "3980" },
  },
]);

describe("the product's catalogue", () => {
  it("is free, standard, premium; the rest is derived from it", () => {
    expect(PLANS).toEqual(["free", "standard", "premium"]);
    expect(PAID_PLANS).toEqual(["standard", "premium"]);
    expect(PLAN_CATALOGUE.freePlan).toBe("free");
    expect(planSchema.options).toEqual([...PLANS]);
    expect(PLAN_ORDER).toEqual(PLANS);
    expect(DEFAULT_PRICES).toEqual({
      PRICE_USD_STANDARD: "15",
      PRICE_JPY_STANDARD: "1980",
      PRICE_USD_PREMIUM: "30",
      PRICE_JPY_PREMIUM: "3980",
    });
    expect(quotasFromConfig({})).toEqual({
      free: { maxMinutes: 30, maxSummaries: 3, maxTitleRuns: 3 },
      standard: { maxMinutes: 600, maxSummaries: 100, maxTitleRuns: 100 },
      premium: { maxMinutes: 1800, maxSummaries: 500, maxTitleRuns: 500 },
    });
  });

  it("refuses entries that do not make a catalogue", () => {
    const q = { maxMinutes: 1, maxSummaries: 1, maxTitleRuns: 1 };
    expect(() => definePlans([{ name: "pro", paid: true, quotas: q, prices: {} }])).toThrow(/first plan/);
    expect(() =>
      definePlans([
        { name: "free", paid: false, quotas: q, prices: {} },
        { name: "basic", paid: false, quotas: q, prices: {} },
      ]),
    ).toThrow(/only the first plan may be unpaid/);
    expect(() =>
      definePlans([
        { name: "free", paid: false, quotas: q, prices: {} },
        { name: "free", paid: true, quotas: q, prices: {} },
      ]),
    ).toThrow(/listed twice/);
    expect(() => definePlans([{ name: "Free plan", paid: false, quotas: q, prices: {} }])).toThrow(/must match/);
  });
});

describe("a fourth plan", () => {
  it("has its rank, kind and default quotas", () => {
    expect(TEST.names).toEqual(["free", "standard", "pro", "premium"]);
    expect(TEST.paidNames).toEqual(["standard", "pro", "premium"]);
    expect([TEST.rank("pro"), TEST.isPaid("pro"), TEST.has("pro"), TEST.has("gold")]).toEqual([2, true, true, false]);
    expect(TEST.defaultQuotas.pro).toEqual({ maxMinutes: 1200, maxSummaries: 250, maxTitleRuns: 200 });
    expect(() => TEST.rank("gold")).toThrow(/unknown plan/);
  });

  it("gets quota settings PLAN_PRO_*, and its limits are the ones passed to the guarded SQL", () => {
    const env = z.looseObject(planEnv(TEST)).parse({ PLAN_PRO_MINUTES: "1500", PLAN_PRO_TITLE_RUNS: "7" });
    expect(Object.keys(planEnv(TEST))).toEqual(
      expect.arrayContaining(["PLAN_PRO_MINUTES", "PLAN_PRO_SUMMARIES", "PLAN_PRO_TITLE_RUNS"]),
    );
    const quotas = quotasFromConfig(env, TEST);
    expect(quotas.pro).toEqual({ maxMinutes: 1500, maxSummaries: 250, maxTitleRuns: 7 });
    expect(quotas.premium).toEqual({ maxMinutes: 1800, maxSummaries: 500, maxTitleRuns: 500 });
    expect([countLimit(quotas, "pro", "summary"), countLimit(quotas, "pro", "titles")]).toEqual([250, 7]);
    // A plan the config has no quotas for is an error, never another plan's quota.
    expect(() => countLimit(quotasFromConfig({}), "pro", "summary")).toThrow(/No quotas are configured for the pro/);
  });

  it("gets price settings PRICE_<CUR>_PRO and a column in the price table", () => {
    expect(defaultPriceSettings(TEST)).toMatchObject({ PRICE_USD_PRO: "22.50", PRICE_JPY_PRO: "2980" });
    const prices = priceTableFrom({ PRICE_USD_PRO: "20" }, defaultPriceSettings(TEST), TEST);
    expect(prices.USD).toEqual({ free: 0, standard: 1500, pro: 2000, premium: 3000 });
    expect(prices.JPY).toEqual({ free: 0, standard: 1980, pro: 2980, premium: 3980 });
    expect(() =>
      priceTableFrom({ PRICE_EUR_STANDARD: "14", PRICE_EUR_PREMIUM: "28" }, defaultPriceSettings(TEST), TEST),
    ).toThrow("PRICE_EUR_STANDARD, PRICE_EUR_PRO and PRICE_EUR_PREMIUM must all be set");
    // The product's catalogue has no pro plan: its setting is not a price.
    expect(priceTableFrom({ PRICE_USD_PRO: "20" }).USD).toEqual({ free: 0, standard: 1500, premium: 3000 });
  });

  it("is an upgrade from standard and a downgrade from premium, prorated on its own price", () => {
    expect([
      changeKind("standard", "pro", TEST),
      changeKind("premium", "pro", TEST),
      changeKind("pro", "free", TEST),
    ]).toEqual(["upgrade", "downgrade", "downgrade"]);
    const pricing: Pricing<(typeof TEST.names)[number]> = {
      prices: priceTableFrom({}, defaultPriceSettings(TEST), TEST),
      languageCurrency: { ja: "JPY" },
      defaultCurrency: "USD",
    };
    // 20 of 30 days unused: two thirds of $7.50 and of ¥1,000
    const at = { now: new Date("2027-04-11T10:00:00Z"), periodStart: new Date("2027-04-01T09:00:00Z") };
    const quote = (currency: string) =>
      quoteChange({
        from: "standard",
        to: "pro",
        currency,
        pricing,
        plans: TEST,
        ...at,
        resetDate: new Date("2027-05-01T09:00:00Z"),
      });
    expect([quote("USD").proratedMinor, quote("JPY").proratedMinor]).toEqual([500, 667]);
    expect(planOffers(pricing, "USD", TEST)).toEqual([
      { name: "free", price: 0 },
      { name: "standard", price: 15 },
      { name: "pro", price: 22.5 },
      { name: "premium", price: 30 },
    ]);
  });

  it("takes its place on the plan screen: order, paid, change kind and price differences", () => {
    const offers = [
      { name: "premium", price: 30 },
      { name: "pro", price: 22.5 },
      { name: "free", price: 0 },
      { name: "gold", price: 99 },
      { name: "standard", price: 15 },
    ];
    expect(sortPlans(offers, TEST).map((p) => p.name)).toEqual(["free", "standard", "pro", "premium"]);
    expect(sortPlans(offers).map((p) => p.name)).toEqual(["free", "standard", "premium"]);
    expect([planRank("pro", TEST), isPaidPlan("pro", TEST)]).toEqual([2, true]);
    expect([planChange("standard", "pro", TEST), planChange("premium", "pro", TEST)]).toEqual(["upgrade", "downgrade"]);
    // Between any two paid plans the difference is shown; from or to free it is not.
    expect(priceDifference(offers, "standard", "pro", TEST)).toEqual({ amount: 7.5, direction: "increase" });
    expect(priceDifference(offers, "premium", "pro", TEST)).toEqual({ amount: 7.5, direction: "decrease" });
    expect(priceDifference(offers, "pro", "free", TEST)).toBeNull();
    expect(priceDifference(offers, "free", "pro", TEST)).toBeNull();
  });
});
