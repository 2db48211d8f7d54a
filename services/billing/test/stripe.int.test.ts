// The Stripe adapter end to end through the gateway, against a local stand-in of the Stripe API
// (form-encoded bodies, Idempotency-Key, Stripe-shaped errors) and signed webhooks: upgrades,
// declines, 3-D Secure finished by webhook (replayed and forged webhooks change nothing), a missed
// webhook reconciled, concurrent upgrades charging once, renewals charged off-session once.
import { jest } from "@jest/globals";
import Stripe from "stripe";
import { api } from "../../../tests/support/gateway.ts";
import { paymentIntentEvent, type StripeStandin, startStripeStandin } from "../../../tests/support/stripe-standin.ts";
import { runSweep } from "../src/sweep.ts";
import { type BillingStack, createUser, makeClock, startBillingStack } from "./harness.ts";

jest.setTimeout(60_000);

const WEBHOOK_SECRET = "whsec_test_standin_secret";
const PERIOD_START = "2027-04-01T09:00:00.000Z";
const RESET = "2027-05-01T09:00:00.000Z";
const NEXT_RESET = "2027-06-01T09:00:00.000Z";

let stripeApi: StripeStandin;
let s: BillingStack;
const signer = new Stripe("sk_test_unused");

beforeAll(async () => {
  stripeApi = await startStripeStandin();
  s = await startBillingStack({
    clock: makeClock("2027-04-11T10:00:00.000Z"),
    env: {
      PAYMENT_PROVIDER: "stripe",
      STRIPE_SECRET_KEY: "sk_test_standin",
      STRIPE_PUBLISHABLE_KEY: "pk_test_standin",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_HOST: stripeApi.host,
      STRIPE_API_PORT: String(stripeApi.port),
      STRIPE_API_PROTOCOL: "http",
    },
  });
});
afterAll(async () => {
  await s?.close();
  await stripeApi?.close();
});
beforeEach(() => {
  s.clock.set("2027-04-11T10:00:00.000Z");
  stripeApi.setDelay(0);
});

const user = () => createUser(s, { periodStart: PERIOD_START });
const change = (token: string, body: Record<string, unknown>) =>
  api(s.url, "POST", "/api/subscriptions/create-or-update-subscription", { token, body });
const usage = async (token: string) => (await api(s.url, "GET", "/api/user-usage", { token })).body;
const intentsFor = (uid: string) =>
  stripeApi.calls("POST", "/v1/payment_intents").filter((r) => (r.form.metadata as { uid?: string })?.uid === uid);
function webhook(payload: string, secret = WEBHOOK_SECRET, signedPayload = payload) {
  const header = signer.webhooks.generateTestHeaderString({ payload: signedPayload, secret });
  return api(s.url, "POST", "/api/billing/webhook", {
    rawBody: payload,
    headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": header },
  });
}
async function snapshot(uid: string) {
  return {
    user: await s.t.db.user.findUniqueOrThrow({ where: { id: uid } }),
    sub: await s.t.db.subscription.findUnique({ where: { userId: uid } }),
    payments: await s.t.db.payment.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } }),
    events: await s.t.db.processedWebhookEvent.count(),
  };
}

it("upgrades with a saved Stripe card: customer, attach, PaymentIntent with an idempotency key", async () => {
  const { uid, token } = await user();
  const r = await change(token, { paymentMethodId: "pm_card_visa", selectedPlan: "premium" });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: "upgraded", plan: "premium", charged: { amount: 20, currency: "USD" } });

  const customer = stripeApi
    .calls("POST", "/v1/customers")
    .find((c) => (c.form.metadata as { uid: string }).uid === uid)!;
  expect(customer.idempotencyKey).toBe(`customer:${uid}`);
  expect(customer.authorization).toBe("Bearer sk_test_standin");
  const attach = stripeApi.calls("POST", "/v1/payment_methods/pm_card_visa/attach").at(-1)!;
  expect(attach.form.customer).toMatch(/^cus_/);
  const [pi] = intentsFor(uid);
  expect(pi.idempotencyKey).toBe(`upgrade:${uid}:premium:${PERIOD_START}:1`);
  expect(pi.form).toMatchObject({
    amount: "2000",
    currency: "usd",
    customer: attach.form.customer,
    payment_method: "pm_card_visa",
    confirm: "true",
    setup_future_usage: "off_session",
    automatic_payment_methods: { enabled: "true", allow_redirects: "never" },
    metadata: { uid, kind: "upgrade", plan: "premium", paymentId: expect.any(String) },
  });

  const cur = await api(s.url, "GET", "/api/subscriptions/current", { token });
  expect(cur.body).toMatchObject({
    provider: "stripe",
    publishableKey: "pk_test_standin",
    plan: "premium",
    paymentMethod: { brand: "visa", last4: "4242" },
  });
  expect((await usage(token)).plan).toBe("premium");
});

it("a declined card answers 402 PAYMENT_DECLINED with the provider's message", async () => {
  const { token } = await user();
  const r = await change(token, { paymentMethodId: "pm_card_visa_chargeDeclined", selectedPlan: "standard" });
  expect([r.status, r.body.error.code, r.body.error.message, r.body.error.details]).toEqual([
    402,
    "PAYMENT_DECLINED",
    "Your card was declined.",
    { reason: "generic_decline" },
  ]);
  expect((await usage(token)).plan).toBe("free");
});

describe("3-D Secure and webhooks", () => {
  it("returns the clientSecret; the signed webhook applies it once; a replay changes nothing", async () => {
    const { uid, token } = await user();
    const r = await change(token, { paymentMethodId: "pm_card_authenticationRequired", selectedPlan: "premium" });
    expect(r.body).toMatchObject({
      status: "requires_action",
      plan: "free",
      clientSecret: expect.stringMatching(/^pi_\w+_secret_/),
    });
    const intentId = r.body.clientSecret.split("_secret_")[0];

    // The web app confirms with Stripe.js; Stripe then posts the event.
    const payload = paymentIntentEvent("payment_intent.succeeded", stripeApi.completeAuthentication(intentId));
    const first = await webhook(payload);
    expect([first.status, first.body]).toEqual([200, { received: true, result: "applied" }]);
    expect((await usage(token)).plan).toBe("premium");

    const before = await snapshot(uid);
    const replay = await webhook(payload);
    expect([replay.status, replay.body]).toEqual([200, { received: true, result: "duplicate" }]);
    expect(await snapshot(uid)).toEqual(before);
    expect(before.payments.map((p) => [p.status, p.intentId])).toEqual([["succeeded", intentId]]);
  });

  it("a forged or tampered webhook is refused and changes nothing", async () => {
    const { uid, token } = await user();
    const r = await change(token, { paymentMethodId: "pm_card_authenticationRequired", selectedPlan: "standard" });
    const intentId = r.body.clientSecret.split("_secret_")[0];
    const intent = { ...stripeApi.intents.get(intentId)!, status: "succeeded" };
    const payload = paymentIntentEvent("payment_intent.succeeded", intent);
    const before = await snapshot(uid);

    const forged = await webhook(payload, "whsec_wrong_secret");
    expect([forged.status, forged.body.error.code]).toEqual([400, "WEBHOOK_SIGNATURE_INVALID"]);
    const tampered = await webhook(payload, WEBHOOK_SECRET, paymentIntentEvent("customer.created", { id: "cus_x" }));
    expect(tampered.status).toBe(400);
    const unsigned = await api(s.url, "POST", "/api/billing/webhook", { rawBody: payload });
    expect(unsigned.status).toBe(400);

    expect(await snapshot(uid)).toEqual(before);
    expect((await usage(token)).plan).toBe("free");
  });

  it("a failed challenge (payment_failed) leaves the plan; unrelated events are acknowledged", async () => {
    const { uid, token } = await user();
    const r = await change(token, { paymentMethodId: "pm_card_authenticationRequired", selectedPlan: "standard" });
    const intentId = r.body.clientSecret.split("_secret_")[0];
    const intent = {
      ...stripeApi.intents.get(intentId)!,
      status: "requires_payment_method",
      last_payment_error: { code: "payment_intent_authentication_failure", message: "Authentication failed." },
    };
    const failed = await webhook(paymentIntentEvent("payment_intent.payment_failed", intent));
    expect(failed.body.result).toBe("applied");
    expect((await snapshot(uid)).payments.map((p) => [p.status, p.failureCode])).toEqual([
      ["failed", "payment_intent_authentication_failure"],
    ]);
    expect((await usage(token)).plan).toBe("free");
    const other = await webhook(paymentIntentEvent("customer.created", { id: "cus_123", object: "customer" }));
    expect(other.body).toEqual({ received: true, result: "ignored" });
  });

  it("a missed webhook is reconciled when the plan screen loads", async () => {
    const { token } = await user();
    const r = await change(token, { paymentMethodId: "pm_card_authenticationRequired", selectedPlan: "standard" });
    stripeApi.completeAuthentication(r.body.clientSecret.split("_secret_")[0]);
    const cur = await api(s.url, "GET", "/api/subscriptions/current", { token });
    expect([cur.body.plan, cur.body.pendingPayment]).toEqual(["standard", null]);
  });
});

it("two simultaneous upgrade requests create one PaymentIntent and both succeed", async () => {
  const { uid, token } = await user();
  stripeApi.setDelay(400);
  const [a, b] = await Promise.all([
    change(token, { paymentMethodId: "pm_card_visa", selectedPlan: "standard" }),
    change(token, { paymentMethodId: "pm_card_visa", selectedPlan: "standard" }),
  ]);
  expect([a.status, b.status]).toEqual([200, 200]);
  expect([a.body.status, b.body.status]).toEqual(["upgraded", "upgraded"]);
  expect(intentsFor(uid)).toHaveLength(1);
  expect((await snapshot(uid)).payments).toHaveLength(1);
});

describe("renewals", () => {
  it("charges the plan price off-session on the reset date, once, and starts the new period", async () => {
    const { uid, token } = await user();
    await change(token, { paymentMethodId: "pm_card_visa", selectedPlan: "standard" });
    s.clock.set("2027-05-01T09:30:00.000Z");
    const now = s.clock.now();
    await runSweep(s.t.db, s.billing, now);
    await runSweep(s.t.db, s.billing, now);
    const renewals = intentsFor(uid).filter((r) => (r.form.metadata as { kind: string }).kind === "renewal");
    expect(renewals).toHaveLength(1);
    expect(renewals[0].idempotencyKey).toBe(`renewal:${uid}:${RESET}`);
    expect(renewals[0].form).toMatchObject({ amount: "1500", currency: "usd", off_session: "true", confirm: "true" });
    const snap = await snapshot(uid);
    expect([snap.user.plan, snap.user.resetDate.toISOString(), snap.sub?.paidUntil?.toISOString()]).toEqual([
      "standard",
      NEXT_RESET,
      NEXT_RESET,
    ]);
  });

  it("a declined renewal moves the user to free and the plan screen says why", async () => {
    const { uid, token } = await user();
    await change(token, { paymentMethodId: "pm_card_visa", selectedPlan: "premium" });
    // The saved card stops working before the billing date.
    await s.t.db.subscription.update({
      where: { userId: uid },
      data: { paymentMethodId: "pm_card_visa_chargeDeclined" },
    });
    s.clock.set("2027-05-01T10:00:00.000Z");
    await runSweep(s.t.db, s.billing, s.clock.now());
    const cur = await api(s.url, "GET", "/api/subscriptions/current", { token });
    expect(cur.body).toMatchObject({
      plan: "free",
      autoRenew: false,
      lastRenewalFailure: {
        reason: "Your card was declined.",
        code: "generic_decline",
        date: "2027-05-01T10:00:00.000Z",
      },
    });
    expect(await usage(token)).toMatchObject({ plan: "free", maxMinutes: 30, resetDate: NEXT_RESET });
  });
});

it("the local card endpoints do not exist with the Stripe provider", async () => {
  const { token } = await user();
  const r = await api(s.url, "POST", "/api/billing/local/payment-methods", {
    token,
    body: { number: "4242424242424242", expMonth: 12, expYear: 2031, cvc: "123" },
  });
  expect([r.status, r.body.error.code]).toEqual([404, "NOT_FOUND"]);
});

it("the confirmation step: a quote with the Stripe card on file, a changed card attached to the customer, then charged", async () => {
  const { uid, token } = await user();
  const first = await change(token, { paymentMethodId: "pm_card_visa", selectedPlan: "standard", confirmedAmount: 10 });
  expect(first.body).toMatchObject({ status: "upgraded", charged: { amount: 10, currency: "USD" } });

  const q = await api(s.url, "GET", "/api/subscriptions/quote?plan=premium", { token });
  expect(q.body).toMatchObject({ kind: "upgrade", amountNow: 10, card: { brand: "visa", last4: "4242" } });

  const card = await api(s.url, "POST", "/api/subscriptions/payment-method", {
    token,
    body: { paymentMethodId: "pm_card_mastercard" },
  });
  expect([card.status, card.body.paymentMethod]).toEqual([200, { brand: "mastercard", last4: "4444" }]);
  const attach = stripeApi.calls("POST", "/v1/payment_methods/pm_card_mastercard/attach").at(-1);
  const sub = await s.t.db.subscription.findUniqueOrThrow({ where: { userId: uid } });
  expect(attach?.form.customer).toBe(sub.customerId);
  expect(intentsFor(uid)).toHaveLength(1);

  const unknown = await api(s.url, "POST", "/api/subscriptions/payment-method", {
    token,
    body: { paymentMethodId: "pm_card_nonexistent" },
  });
  expect(unknown.status).toBeGreaterThanOrEqual(400);
  expect(unknown.status).toBeLessThan(500);

  const wrong = await change(token, { paymentMethodId: null, selectedPlan: "premium", confirmedAmount: 5 });
  expect([wrong.status, wrong.body.error.code]).toEqual([409, "PRICE_CHANGED"]);
  expect(intentsFor(uid)).toHaveLength(1);
  const up = await change(token, { paymentMethodId: null, selectedPlan: "premium", confirmedAmount: 10 });
  expect(up.body).toMatchObject({ status: "upgraded", plan: "premium" });
  expect(intentsFor(uid).at(-1)?.form.payment_method).toBe("pm_card_mastercard");
});
