import { describe, expect, it } from "@jest/globals";
import { formatPrice, isPaidPlan, type PlanPrice, planChange, priceDifference, priceOf, sortPlans } from "./pricing.ts";

const USD: PlanPrice[] = [
  { name: "free", price: 0 },
  { name: "standard", price: 15 },
  { name: "premium", price: 30 },
];
const JPY: PlanPrice[] = [
  { name: "free", price: 0 },
  { name: "standard", price: 1980 },
  { name: "premium", price: 3980 },
];

describe("plan changes", () => {
  it.each([
    ["free", "free", "none"],
    ["free", "standard", "upgrade"],
    ["free", "premium", "upgrade"],
    ["standard", "premium", "upgrade"],
    ["premium", "standard", "downgrade"],
    ["premium", "free", "downgrade"],
    ["standard", "free", "downgrade"],
  ] as const)("%s → %s is %s", (from, to, kind) => {
    expect(planChange(from, to)).toBe(kind);
  });
  it("only free is unpaid", () => {
    expect([isPaidPlan("free"), isPaidPlan("standard"), isPaidPlan("premium")]).toEqual([false, true, true]);
  });
});

describe("price difference (standard ↔ premium only)", () => {
  it("standard → premium is an increase by the difference", () => {
    expect(priceDifference(USD, "standard", "premium")).toEqual({ amount: 15, direction: "increase" });
    expect(priceDifference(JPY, "standard", "premium")).toEqual({ amount: 2000, direction: "increase" });
  });
  it("premium → standard is a decrease by the same amount", () => {
    expect(priceDifference(USD, "premium", "standard")).toEqual({ amount: 15, direction: "decrease" });
  });
  it.each([
    ["free", "standard"],
    ["free", "premium"],
    ["standard", "free"],
    ["premium", "free"],
    ["standard", "standard"],
    ["premium", "premium"],
  ] as const)("none for %s → %s", (from, to) => {
    expect(priceDifference(USD, from, to)).toBeNull();
  });
  it("none when a price is missing or the prices are equal", () => {
    expect(priceDifference([USD[1]], "standard", "premium")).toBeNull();
    expect(
      priceDifference(
        [
          { name: "standard", price: 10 },
          { name: "premium", price: 10 },
        ],
        "standard",
        "premium",
      ),
    ).toBeNull();
  });
  it("rounds away float noise", () => {
    const plans: PlanPrice[] = [
      { name: "standard", price: 14.99 },
      { name: "premium", price: 29.99 },
    ];
    expect(priceDifference(plans, "premium", "standard")).toEqual({ amount: 15, direction: "decrease" });
  });
});

describe("plans list", () => {
  it("sorts free, standard, premium and drops unknown, duplicate or bad entries", () => {
    const messy = [
      { name: "premium", price: 30 },
      { name: "gold", price: 99 },
      { name: "free", price: 0 },
      { name: "standard", price: -1 },
      { name: "standard", price: 15 },
      { name: "premium", price: 31 },
    ] as PlanPrice[];
    expect(sortPlans(messy)).toEqual(USD);
    expect(priceOf(USD, "premium")).toBe(30);
    expect(priceOf([], "premium")).toBeUndefined();
  });
});

describe("price formatting (currency from the plans call)", () => {
  it("USD without needless decimals, with them when needed", () => {
    expect(formatPrice(15, "USD", "en")).toBe("$15");
    // Right-to-left languages get the price as one left-to-right isolate (no "$US 15").
    expect(formatPrice(15, "USD", "ar")).toMatch(/^\u2066.*15.*US\$\u2069$/);
    expect(formatPrice(15, "USD", "de")).not.toContain("\u2066");
    expect(formatPrice(0, "USD", "en")).toBe("$0");
    expect(formatPrice(14.99, "USD", "en")).toBe("$14.99");
    expect(formatPrice(14.5, "USD", "en")).toBe("$14.50");
  });
  it("JPY has no decimals and a yen sign", () => {
    expect(formatPrice(1980, "JPY", "ja")).toMatch(/^[¥￥]1,980$/);
    expect(formatPrice(1980, "JPY", "en")).toBe("¥1,980");
  });
  it("follows the UI language's number format", () => {
    expect(formatPrice(1500, "USD", "de")).toBe("1.500\u00a0$");
  });
  it("falls back on a bad currency code", () => {
    expect(formatPrice(15, "NOT A CODE", "en")).toBe("15 NOT A CODE");
  });
});
