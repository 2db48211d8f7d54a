import { describe, expect, it } from "@jest/globals";
import { parseConfirmResult, parseCurrent, parsePaymentMethod, parsePlans, parseSubscriptionResult } from "./parse.ts";

describe("plans answer", () => {
  it("reads plans in order with the currency", () => {
    expect(
      parsePlans({
        plans: [
          { name: "premium", price: 3980 },
          { name: "standard", price: 1980 },
          { name: "free", price: 0 },
        ],
        currency: "JPY",
      }),
    ).toEqual({
      plans: [
        { name: "free", price: 0 },
        { name: "standard", price: 1980 },
        { name: "premium", price: 3980 },
      ],
      currency: "JPY",
    });
  });
  it("keeps the quotas the server sends", () => {
    expect(
      parsePlans({
        plans: [{ name: "standard", price: 15, maxMinutes: 600, maxSummaries: 100, maxTitleRuns: 100 }],
        currency: "USD",
      })?.plans,
    ).toEqual([{ name: "standard", price: 15, maxMinutes: 600, maxSummaries: 100, maxTitleRuns: 100 }]);
    expect(parsePlans({ plans: [{ name: "free", price: 0, maxMinutes: -1 }] })?.plans).toEqual([
      { name: "free", price: 0 },
    ]);
  });
  it("defaults the currency to USD and accepts numeric strings", () => {
    expect(parsePlans({ plans: [{ name: "standard", price: "15" }] })).toEqual({
      plans: [{ name: "standard", price: 15 }],
      currency: "USD",
    });
    expect(parsePlans({ plans: [{ name: "standard", price: 15 }], currency: "dollars" })?.currency).toBe("USD");
    expect(parsePlans({ plans: [{ name: "standard", price: 15 }], currency: "jpy" })?.currency).toBe("JPY");
  });
  it("rejects answers without any usable plan", () => {
    expect(parsePlans(null)).toBeNull();
    expect(parsePlans({ plans: [] })).toBeNull();
    expect(parsePlans({ plans: [{ name: "gold", price: 1 }] })).toBeNull();
  });
});

describe("current subscription", () => {
  it("reads a full answer", () => {
    expect(
      parseCurrent({
        plan: "premium",
        pendingPlan: { plan: "standard", date: "2026-12-15" },
        nextBillingDate: "2026-12-15",
        autoRenew: true,
        currency: "jpy",
        lastRenewalFailure: { reason: "Your card was declined.", code: "card_declined", date: "2026-11-15" },
        paymentMethod: { brand: "visa", last4: "4242" },
        pendingPayment: { clientSecret: "pi_1_secret_2", plan: "premium", amount: 1000 },
        provider: "stripe",
        publishableKey: "pk_test_123",
      }),
    ).toEqual({
      plan: "premium",
      pendingPlan: { plan: "standard", date: "2026-12-15" },
      nextBillingDate: "2026-12-15",
      autoRenew: true,
      currency: "JPY",
      lastRenewalFailure: { reason: "Your card was declined.", code: "card_declined", date: "2026-11-15" },
      paymentMethod: { brand: "visa", last4: "4242" },
      pendingPayment: { clientSecret: "pi_1_secret_2", plan: "premium", amount: 1000 },
      provider: "stripe",
      publishableKey: "pk_test_123",
    });
  });
  it("fills defaults: local provider, nothing pending", () => {
    expect(parseCurrent({ plan: "free" })).toEqual({
      plan: "free",
      pendingPlan: null,
      nextBillingDate: null,
      autoRenew: false,
      lastRenewalFailure: null,
      paymentMethod: null,
      pendingPayment: null,
      currency: null,
      provider: "local",
      publishableKey: null,
    });
  });
  it("ignores malformed parts and rejects an unknown plan", () => {
    const s = parseCurrent({ plan: "standard", pendingPlan: { plan: "gold", date: "x" }, paymentMethod: {} });
    expect([s?.pendingPlan, s?.paymentMethod]).toEqual([null, null]);
    expect(parseCurrent({ plan: "gold" })).toBeNull();
    expect(parseCurrent("nope")).toBeNull();
  });
});

describe("create-or-update answer", () => {
  it("reads the fields", () => {
    expect(parseSubscriptionResult({ nextBillingDate: "2026-12-22", clientSecret: "pi_1_secret_2" })).toEqual({
      nextBillingDate: "2026-12-22",
      clientSecret: "pi_1_secret_2",
    });
    expect(parseSubscriptionResult({ message: "Scheduled", status: "requires_action" })).toEqual({
      message: "Scheduled",
      status: "requires_action",
    });
    expect(parseSubscriptionResult({ paymentIntent: { status: "succeeded" } })).toEqual({ status: "succeeded" });
  });
  it("reads the real service's answer", () => {
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
    expect(parseSubscriptionResult({ status: "scheduled", charged: null }).charged).toBeUndefined();
  });
  it("reads an error body", () => {
    expect(parseSubscriptionResult({ error: { code: "PAYMENT_DECLINED", message: "Declined" } })).toEqual({
      error: { code: "PAYMENT_DECLINED", message: "Declined", link: undefined },
    });
  });
  it("tolerates junk", () => {
    expect(parseSubscriptionResult(undefined)).toEqual({});
    expect(parseSubscriptionResult({ clientSecret: "" })).toEqual({});
  });
});

describe("local provider answers", () => {
  it("confirm", () => {
    expect(parseConfirmResult({ status: "succeeded" })).toEqual({ status: "succeeded" });
    expect(parseConfirmResult({ paymentIntent: { status: "requires_payment_method" } })).toEqual({
      status: "requires_payment_method",
    });
    expect(parseConfirmResult({ error: { code: "PAYMENT_DECLINED" } })?.error?.code).toBe("PAYMENT_DECLINED");
    expect(parseConfirmResult({})).toBeNull();
  });
  it("payment method", () => {
    expect(parsePaymentMethod({ id: "pm_1", brand: "visa", last4: "4242" })).toEqual({
      id: "pm_1",
      brand: "visa",
      last4: "4242",
    });
    expect(parsePaymentMethod({ paymentMethod: { id: "pm_2" } })?.id).toBe("pm_2");
    expect(parsePaymentMethod({ brand: "visa" })).toBeNull();
  });
});
