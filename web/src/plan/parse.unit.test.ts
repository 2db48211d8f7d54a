import { describe, expect, it } from "@jest/globals";
import { parseConfirmResult, parseCurrent, parsePaymentMethod, parsePlans, parseSubscriptionResult } from "./parse.ts";

const offer = (name: string, price: number, maxMinutes = 600) => ({
  name,
  price,
  maxMinutes,
  maxSummaries: 100,
  maxTitleRuns: 100,
});

describe("plans answer", () => {
  it("reads the plans in the catalogue's order with their quotas and the currency", () => {
    expect(
      parsePlans({
        plans: [offer("premium", 3980, 1800), offer("standard", 1980), offer("free", 0, 30)],
        currency: "JPY",
      }),
    ).toEqual({
      plans: [offer("free", 0, 30), offer("standard", 1980), offer("premium", 3980, 1800)],
      currency: "JPY",
    });
  });
  it("drops a repeated plan", () => {
    expect(
      parsePlans({ plans: [offer("standard", 15), offer("standard", 16)], currency: "USD" })?.plans.map((p) => p.price),
    ).toEqual([15]);
  });
  it("rejects answers that do not match the shared schema", () => {
    expect(parsePlans(null)).toBeNull();
    expect(parsePlans({ plans: [], currency: "USD" })).toBeNull();
    expect(parsePlans({ plans: [offer("standard", 15)] })).toBeNull(); // no currency
    expect(parsePlans({ plans: [offer("standard", 15)], currency: "usd" })).toBeNull();
    expect(parsePlans({ plans: [offer("gold", 1)], currency: "USD" })).toBeNull();
    expect(parsePlans({ plans: [{ ...offer("standard", 15), price: "15" }], currency: "USD" })).toBeNull();
    expect(parsePlans({ plans: [{ name: "standard", price: 15 }], currency: "USD" })).toBeNull(); // no quotas
  });
});

const CURRENT = {
  plan: "premium",
  pendingPlan: { plan: "standard", date: "2026-12-15T09:00:00.000Z" },
  nextBillingDate: "2026-12-15T09:00:00.000Z",
  autoRenew: true,
  currency: "JPY",
  lastRenewalFailure: { reason: "Your card was declined.", code: "card_declined", date: "2026-11-15T09:00:00.000Z" },
  paymentMethod: { brand: "visa", last4: "4242" },
  pendingPayment: { clientSecret: "pi_1_secret_2", plan: "premium", amount: 1000 },
  provider: "stripe",
  publishableKey: "pk_test_123",
};

describe("current subscription", () => {
  it("reads a full answer", () => {
    expect(parseCurrent(CURRENT)).toEqual(CURRENT);
  });
  it("reads a free plan with nothing pending (no publishable key with the local provider)", () => {
    const free = {
      plan: "free",
      pendingPlan: null,
      nextBillingDate: "2026-12-15T09:00:00.000Z",
      autoRenew: false,
      currency: "USD",
      lastRenewalFailure: null,
      paymentMethod: null,
      pendingPayment: null,
      provider: "local",
    };
    expect(parseCurrent(free)).toEqual(free);
  });
  it("rejects an unknown plan, a missing field or junk", () => {
    expect(parseCurrent({ ...CURRENT, plan: "gold" })).toBeNull();
    expect(parseCurrent({ ...CURRENT, pendingPlan: { plan: "gold", date: "x" } })).toBeNull();
    expect(parseCurrent({ plan: "free" })).toBeNull();
    expect(parseCurrent("nope")).toBeNull();
  });
});

describe("create-or-update answer", () => {
  it("reads the real service's answers", () => {
    expect(
      parseSubscriptionResult({
        status: "upgraded",
        nextBillingDate: "2026-12-22T00:00:00.000Z",
        plan: "standard",
        pendingPlan: null,
        charged: { amount: 7.5, currency: "USD" },
        message: "Upgraded to standard.",
      }),
    ).toEqual({
      status: "upgraded",
      nextBillingDate: "2026-12-22T00:00:00.000Z",
      charged: { amount: 7.5, currency: "USD" },
      message: "Upgraded to standard.",
    });
    expect(
      parseSubscriptionResult({
        status: "requires_action",
        nextBillingDate: "2026-12-22T00:00:00.000Z",
        clientSecret: "pi_1_secret_2",
        plan: "free",
        pendingPlan: null,
        charged: { amount: 15, currency: "USD" },
        message: "Payment requires additional action.",
      }),
    ).toMatchObject({ status: "requires_action", clientSecret: "pi_1_secret_2" });
    expect(parseSubscriptionResult({ status: "scheduled", charged: null }).charged).toBeUndefined();
  });
  it("reads the fields a partial answer has", () => {
    expect(parseSubscriptionResult({ nextBillingDate: "2026-12-22", clientSecret: "pi_1_secret_2" })).toEqual({
      nextBillingDate: "2026-12-22",
      clientSecret: "pi_1_secret_2",
    });
    expect(parseSubscriptionResult({ message: "Scheduled", status: "requires_action" })).toEqual({
      message: "Scheduled",
      status: "requires_action",
    });
  });
  it("reads an error body", () => {
    expect(parseSubscriptionResult({ error: { code: "PAYMENT_DECLINED", message: "Declined" } })).toEqual({
      error: { code: "PAYMENT_DECLINED", message: "Declined", link: undefined },
    });
  });
  it("reads nothing from junk or from fields of the wrong type", () => {
    expect(parseSubscriptionResult(undefined)).toEqual({});
    expect(parseSubscriptionResult({ clientSecret: "" })).toEqual({});
    expect(parseSubscriptionResult({ status: "done", message: "Done" })).toEqual({});
    expect(parseSubscriptionResult({ paymentIntent: { status: "succeeded" } })).toEqual({});
    expect(parseSubscriptionResult({ plan: "gold", message: "Upgraded" })).toEqual({});
  });
});

describe("local provider answers", () => {
  it("confirm", () => {
    const answer = { status: "succeeded", plan: "premium", nextBillingDate: "2026-12-22T00:00:00.000Z" };
    expect(parseConfirmResult(answer)).toEqual(answer);
    expect(parseConfirmResult({ status: "requires_payment_method" })).toBeNull();
    expect(parseConfirmResult({})).toBeNull();
  });
  it("payment method", () => {
    expect(parsePaymentMethod({ id: "pm_1", brand: "visa", last4: "4242" })).toEqual({
      id: "pm_1",
      brand: "visa",
      last4: "4242",
    });
    expect(parsePaymentMethod({ paymentMethod: { id: "pm_2" } })).toBeNull();
    expect(parsePaymentMethod({ brand: "visa" })).toBeNull();
  });
});
