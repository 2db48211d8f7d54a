import { afterEach, beforeEach, describe, expect, it, jest } from "@jest/globals";
import type { PlanName } from "@kikitori/shared";
import { ApiError } from "../api/errors.ts";
import {
  applyPlanChange,
  type ConfirmOutcome,
  keepCurrentPlan,
  outcomeOfStatus,
  type PaymentMethodOutcome,
  type PaymentProvider,
  preparePayment,
  resumePayment,
  settled,
} from "./flow.ts";

function provider(
  pm: PaymentMethodOutcome | Error = { id: "pm_1" },
  confirm: ConfirmOutcome | Error = { status: "succeeded" },
) {
  const calls = { createPaymentMethod: 0, confirm: [] as string[] };
  const p: PaymentProvider = {
    async createPaymentMethod() {
      calls.createPaymentMethod++;
      if (pm instanceof Error) throw pm;
      return pm;
    },
    async confirmPayment(secret) {
      calls.confirm.push(secret);
      if (confirm instanceof Error) throw confirm;
      return confirm;
    },
  };
  return { p, calls };
}

function submitter(answer: unknown) {
  const bodies: unknown[] = [];
  const submit = async (body: unknown) => {
    bodies.push(body);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { submit, bodies };
}

const input = (currentPlan: PlanName, selectedPlan: PlanName, loggedIn = true) => ({
  loggedIn,
  currentPlan,
  selectedPlan,
});

let errorSpy: ReturnType<typeof jest.spyOn>;
beforeEach(() => {
  errorSpy = jest.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => errorSpy.mockRestore());

describe("applying a plan", () => {
  it("needs a user", async () => {
    const { p } = provider();
    const { submit, bodies } = submitter({});
    expect(await applyPlanChange(input("free", "standard", false), { provider: p, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.notLoggedIn" },
    });
    expect(bodies).toEqual([]);
  });

  it("does nothing for the current plan", async () => {
    const { p, calls } = provider();
    const { submit, bodies } = submitter({});
    expect(await applyPlanChange(input("standard", "standard"), { provider: p, submit })).toEqual({ kind: "noop" });
    expect([bodies.length, calls.createPaymentMethod]).toEqual([0, 0]);
  });

  it("free plan: no card, paymentMethodId null; a message alone is a success", async () => {
    const { p, calls } = provider();
    const { submit, bodies } = submitter({ message: "Switch scheduled", nextBillingDate: "2026-12-15" });
    const out = await applyPlanChange(input("premium", "free"), { provider: p, submit });
    expect(out).toEqual({ kind: "success", notice: { text: "Switch scheduled" } });
    expect(bodies).toEqual([{ paymentMethodId: null, selectedPlan: "free" }]);
    expect(calls.createPaymentMethod).toBe(0);
  });

  it("free plan works even before the card form loads", async () => {
    const { submit } = submitter({ nextBillingDate: "2026-12-15" });
    expect(await applyPlanChange(input("standard", "free"), { provider: null, submit })).toEqual({
      kind: "success",
      notice: { key: "payment.success" },
    });
  });

  it("paid plan without a loaded payment form", async () => {
    const { submit, bodies } = submitter({});
    expect(await applyPlanChange(input("free", "standard"), { provider: null, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.elementsNotLoaded" },
    });
    expect(bodies).toEqual([]);
  });

  it("paid plan: the card problem from the provider stops the flow", async () => {
    const { p } = provider({ error: { key: "payment.cardInfoMissing" } });
    const { submit, bodies } = submitter({});
    expect(await applyPlanChange(input("free", "standard"), { provider: p, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.cardInfoMissing" },
    });
    expect(bodies).toEqual([]);
  });

  it("paid plan: a provider throw or an empty id is 'payment method creation failed'", async () => {
    const { submit } = submitter({});
    expect(await applyPlanChange(input("free", "standard"), { provider: provider(new Error("x")).p, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.paymentMethodFailed" },
    });
    expect(await applyPlanChange(input("free", "standard"), { provider: provider({ id: "" }).p, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.paymentMethodFailed" },
    });
  });

  it("paid plan: sends the payment method, confirms the client secret, succeeded → success", async () => {
    const { p, calls } = provider({ id: "pm_9" }, { status: "succeeded" });
    const { submit, bodies } = submitter({
      status: "requires_action",
      nextBillingDate: "2026-12-22",
      clientSecret: "pi_1_secret",
      message: "Payment requires additional action.",
      charged: { amount: 7.5, currency: "USD" },
    });
    expect(await applyPlanChange(input("free", "standard"), { provider: p, submit })).toEqual({
      kind: "success",
      notice: { key: "payment.success" },
      charged: { amount: 7.5, currency: "USD" },
    });
    expect(bodies).toEqual([{ paymentMethodId: "pm_9", selectedPlan: "standard" }]);
    expect(calls.confirm).toEqual(["pi_1_secret"]);
  });

  it("paid plan with the saved card: no card form, paymentMethodId null", async () => {
    const { p, calls } = provider();
    const { submit, bodies } = submitter({ status: "scheduled", nextBillingDate: "2026-12-15" });
    const out = await applyPlanChange({ ...input("premium", "standard"), useSavedCard: true }, { provider: p, submit });
    expect(out.kind).toBe("success");
    expect(bodies).toEqual([{ paymentMethodId: null, selectedPlan: "standard" }]);
    expect(calls.createPaymentMethod).toBe(0);
  });

  it("confirmation statuses", async () => {
    const run = async (confirm: ConfirmOutcome | Error) => {
      const { submit } = submitter({ clientSecret: "s" });
      return applyPlanChange(input("standard", "premium"), { provider: provider({ id: "pm" }, confirm).p, submit });
    };
    expect(await run({ status: "requires_action" })).toEqual({
      kind: "error",
      notice: { key: "payment.additionalAuth" },
    });
    expect(await run({ status: "requires_payment_method" })).toEqual({
      kind: "error",
      notice: { key: "payment.paymentFailed" },
    });
    expect(await run({ status: "processing" })).toEqual({ kind: "warning", notice: { key: "payment.requiresAction" } });
    expect(await run({ error: { text: "Your card was declined." } })).toEqual({
      kind: "error",
      notice: { text: "Your card was declined." },
    });
    expect(await run(new Error("network"))).toEqual({ kind: "error", notice: { key: "payment.confirmationError" } });
  });

  it("API errors are shown by code with the message as fallback", async () => {
    const { p } = provider();
    const { submit } = submitter(new ApiError("PAYMENT_DECLINED", 402, "Your card was declined."));
    expect(await applyPlanChange(input("free", "premium"), { provider: p, submit })).toEqual({
      kind: "error",
      notice: {
        key: "errors.PAYMENT_DECLINED",
        text: "Your card was declined.",
        values: { status: 402 },
        link: undefined,
      },
    });
  });

  it("an error body in a 2xx answer counts too", async () => {
    const { p } = provider();
    const { submit } = submitter({ error: { code: "CARD_REQUIRED", message: "Card needed" } });
    expect(await applyPlanChange(input("free", "premium"), { provider: p, submit })).toEqual({
      kind: "error",
      notice: { key: "errors.CARD_REQUIRED", text: "Card needed", link: undefined },
    });
  });

  it("an unexpected throw from submit is a generic error", async () => {
    const { p } = provider();
    const { submit } = submitter(new TypeError("boom"));
    expect(await applyPlanChange(input("free", "premium"), { provider: p, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.genericError" },
    });
  });

  it("a status that needs action without a client secret → client secret missing", async () => {
    const { p } = provider();
    const { submit } = submitter({ status: "requires_action" });
    expect(await applyPlanChange(input("free", "premium"), { provider: p, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.clientSecretMissing" },
    });
    const empty = submitter({});
    expect(await applyPlanChange(input("free", "premium"), { provider: p, submit: empty.submit })).toEqual({
      kind: "error",
      notice: { key: "payment.clientSecretMissing" },
    });
  });

  it("a broken provider getter is 'payment method creation failed', not a crash", async () => {
    const broken = {
      get createPaymentMethod(): never {
        throw new Error("broken");
      },
      confirmPayment: async () => ({ status: "succeeded" }),
    } as unknown as PaymentProvider;
    const { submit } = submitter({});
    expect(await applyPlanChange(input("free", "premium"), { provider: broken, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.paymentMethodFailed" },
    });
  });

  it("anything else thrown is an unexpected error, not a crash", async () => {
    const { p } = provider();
    const { submit } = submitter({});
    const odd = {
      loggedIn: true,
      currentPlan: "free",
      get selectedPlan(): never {
        throw new Error("odd");
      },
    } as unknown as ReturnType<typeof input>;
    expect(await applyPlanChange(odd, { provider: p, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.unexpectedError" },
    });
  });
});

describe("the server's answer statuses", () => {
  it("upgraded, scheduled and pending_cancelled get translated texts with the server message as fallback", () => {
    expect(
      settled({ status: "upgraded", message: "Upgraded to standard.", charged: { amount: 15, currency: "USD" } }),
    ).toEqual({
      kind: "success",
      notice: { key: "payment.success", text: "Upgraded to standard." },
      charged: { amount: 15, currency: "USD" },
    });
    expect(settled({ status: "scheduled", message: "Your plan switches to free on 2026-12-15." })).toEqual({
      kind: "success",
      notice: { key: "plan.result.scheduled", text: "Your plan switches to free on 2026-12-15." },
    });
    expect(settled({ status: "pending_cancelled" })).toEqual({
      kind: "success",
      notice: { key: "plan.result.cancelled", text: undefined },
    });
  });
  it("an unknown status with a message shows the message", () => {
    expect(settled({ status: "something_new", message: "Done." })).toEqual({
      kind: "success",
      notice: { text: "Done." },
    });
  });
});

describe("keep my plan", () => {
  it("sends the current plan without a card", async () => {
    const { submit, bodies } = submitter({ status: "pending_cancelled", nextBillingDate: "2026-12-15" });
    expect(await keepCurrentPlan({ loggedIn: true, currentPlan: "premium" }, { provider: null, submit })).toEqual({
      kind: "success",
      notice: { key: "plan.result.cancelled", text: undefined },
    });
    expect(bodies).toEqual([{ paymentMethodId: null, selectedPlan: "premium" }]);
  });
  it("needs a user and shows API errors", async () => {
    const { submit } = submitter(new ApiError("SAME_PLAN", 409, "You are already on the premium plan."));
    expect(await keepCurrentPlan({ loggedIn: false, currentPlan: "premium" }, { provider: null, submit })).toEqual({
      kind: "error",
      notice: { key: "payment.notLoggedIn" },
    });
    expect((await keepCurrentPlan({ loggedIn: true, currentPlan: "premium" }, { provider: null, submit })).kind).toBe(
      "error",
    );
  });
});

describe("resuming a payment that waits for the bank", () => {
  it("confirms the stored client secret", async () => {
    const { p, calls } = provider({ id: "pm" }, { status: "succeeded" });
    expect(await resumePayment("pi_secret", p)).toEqual({ kind: "success", notice: { key: "payment.success" } });
    expect(calls.confirm).toEqual(["pi_secret"]);
  });
  it("without a provider or secret", async () => {
    expect(await resumePayment("pi_secret", null)).toEqual({
      kind: "error",
      notice: { key: "payment.elementsNotLoaded" },
    });
    expect(await resumePayment("", provider().p)).toEqual({
      kind: "error",
      notice: { key: "payment.clientSecretMissing" },
    });
  });
});

describe("outcomeOfStatus", () => {
  it("maps payment-intent statuses", () => {
    expect(outcomeOfStatus("succeeded").kind).toBe("success");
    expect(outcomeOfStatus("canceled")).toEqual({ kind: "error", notice: { key: "payment.paymentFailed" } });
    expect(outcomeOfStatus("requires_capture").kind).toBe("warning");
  });
});

describe("the confirmation step", () => {
  const visa = { brand: "visa", last4: "4242" };

  it("with the card on file: no payment method is made, and the saved card is what the step shows", async () => {
    const { p, calls } = provider();
    expect(await preparePayment({ useSavedCard: true, savedCard: visa }, p)).toEqual({
      paymentMethodId: null,
      card: visa,
    });
    expect(calls.createPaymentMethod).toBe(0);
  });

  it("with a new card: the payment method is made first (nothing charged) and its brand and digits shown", async () => {
    const { p, calls } = provider({ id: "pm_new", brand: "mastercard", last4: "4444" });
    expect(await preparePayment({ useSavedCard: false, savedCard: visa }, p)).toEqual({
      paymentMethodId: "pm_new",
      card: { brand: "mastercard", last4: "4444" },
    });
    expect(calls.createPaymentMethod).toBe(1);
    const bad = provider({ error: { key: "plan.card.errors.numberInvalid" } });
    expect(await preparePayment({ useSavedCard: false, savedCard: null }, bad.p)).toEqual({
      error: { key: "plan.card.errors.numberInvalid" },
    });
    expect(await preparePayment({ useSavedCard: false, savedCard: null }, null)).toEqual({
      error: { key: "payment.elementsNotLoaded" },
    });
  });

  it("pays with the prepared payment method and sends the confirmed amount, without reading the card form again", async () => {
    const { p, calls } = provider();
    const { submit, bodies } = submitter({ status: "upgraded", plan: "premium" });
    const out = await applyPlanChange(
      { ...input("standard", "premium"), prepared: { paymentMethodId: "pm_new" }, confirmedAmount: 10 },
      { provider: p, submit },
    );
    expect(out.kind).toBe("success");
    expect(bodies).toEqual([{ paymentMethodId: "pm_new", selectedPlan: "premium", confirmedAmount: 10 }]);
    expect(calls.createPaymentMethod).toBe(0);
  });

  it("a changed amount charges nothing and says so (PRICE_CHANGED)", async () => {
    const { p } = provider();
    const { submit } = submitter(new ApiError("PRICE_CHANGED", 409, "The amount is now 12 USD"));
    const out = await applyPlanChange(
      { ...input("standard", "premium"), useSavedCard: true, prepared: { paymentMethodId: null }, confirmedAmount: 10 },
      { provider: p, submit },
    );
    expect(out).toMatchObject({ kind: "error", notice: { key: "errors.PRICE_CHANGED" } });
  });
});
