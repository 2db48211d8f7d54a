// Plans and plan changes through the gateway with the embedded card provider (PAYMENT_PROVIDER=local):
// each test card, the local 3-D Secure step, scheduled switches, concurrent upgrades, the internal
// API's token. The clock stands on 2027-04-11 10:00 UTC; periods start 2027-04-01 09:00 (30 days,
// 20 unused), so an upgrade costs 20/30 of the price difference.
import { randomUUID } from "node:crypto";
import { jest } from "@jest/globals";
import { api, startTestGateway } from "../../../tests/support/gateway.ts";
import { addLocalCard, type BillingStack, changePlan, createUser, makeClock, startBillingStack } from "./harness.ts";

jest.setTimeout(60_000);

let s: BillingStack;
const PERIOD_START = "2027-04-01T09:00:00.000Z";
const RESET = "2027-05-01T09:00:00.000Z";

beforeAll(async () => {
  s = await startBillingStack({ clock: makeClock("2027-04-11T10:00:00.000Z") });
});
afterAll(async () => {
  await s?.close();
});

const user = (opts: { language?: string } = {}) => createUser(s, { periodStart: PERIOD_START, ...opts });
const card = (token: string, number: string) => addLocalCard(s, token, number);
const change = (token: string, body: Record<string, unknown>) => changePlan(s, token, body);
const usage = async (token: string) => (await api(s.url, "GET", "/api/user-usage", { token })).body;
const payments = (uid: string) => s.t.db.payment.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } });

describe("plans", () => {
  it("lists the plans with prices in the language's currency", async () => {
    const ja = await api(s.url, "GET", "/api/subscriptions/plans?lang=ja");
    expect(ja.status).toBe(200);
    expect(ja.body.currency).toBe("JPY");
    expect(ja.body.plans.map((p: { name: string; price: number }) => [p.name, p.price])).toEqual([
      ["free", 0],
      ["standard", 1980],
      ["premium", 3980],
    ]);
    expect(ja.body.plans[0]).toMatchObject({ maxMinutes: 30, maxSummaries: 3, maxTitleRuns: 3 });
    const en = await api(s.url, "GET", "/api/subscriptions/plans?lang=en");
    expect([en.body.currency, en.body.plans.map((p: { price: number }) => p.price)]).toEqual(["USD", [0, 15, 30]]);
    expect((await api(s.url, "GET", "/api/subscriptions/plans")).body.currency).toBe("USD");
  });

  it("documents every plan and payment call in the OpenAPI", async () => {
    const doc = await api(s.url, "GET", "/api/docs/json");
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        "/api/subscriptions/plans",
        "/api/subscriptions/current",
        "/api/subscriptions/create-or-update-subscription",
        "/api/billing/webhook",
        "/api/billing/local/payment-methods",
        "/api/billing/local/confirm",
        "/api/subscriptions/quote",
        "/api/subscriptions/payment-method",
        "/api/billing/receipts/{paymentId}",
      ]),
    );
  });
});

describe("local card form", () => {
  it("needs a signed-in user and checks the card", async () => {
    const anon = await api(s.url, "POST", "/api/billing/local/payment-methods", {
      body: { number: "4242424242424242", expMonth: 12, expYear: 2031, cvc: "123" },
    });
    expect(anon.status).toBe(401);
    const { token } = await user();
    const bad = await api(s.url, "POST", "/api/billing/local/payment-methods", {
      token,
      body: { number: "4242424242424241", expMonth: 12, expYear: 2031, cvc: "123" },
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, "CARD_NUMBER_INVALID"]);
    const old = await api(s.url, "POST", "/api/billing/local/payment-methods", {
      token,
      body: { number: "4242424242424242", expMonth: 3, expYear: 2027, cvc: "123" },
    });
    expect([old.status, old.body.error.code]).toEqual([400, "CARD_EXPIRY_INVALID"]);
    const ok = await api(s.url, "POST", "/api/billing/local/payment-methods", {
      token,
      body: { number: "4242 4242 4242 4242", expMonth: 12, expYear: 2031, cvc: "123" },
    });
    expect(ok.body).toEqual({ id: expect.stringMatching(/^pm_local_visa_4242_/), brand: "visa", last4: "4242" });
  });
});

describe("payment methods the local provider did not issue", () => {
  it("refuses an invented id and the all-zero card: no charge, no plan", async () => {
    const { uid, token } = await user();
    const zeros = await api(s.url, "POST", "/api/billing/local/payment-methods", {
      token,
      body: { number: "0000 0000 0000 0000", expMonth: 12, expYear: 2031, cvc: "123" },
    });
    expect([zeros.status, zeros.body.error.code]).toEqual([400, "CARD_NUMBER_INVALID"]);
    const issued = await card(token, "4242424242424242");
    for (const paymentMethodId of [
      "pm_local_visa_4242_0000000000000000",
      `${issued.slice(0, issued.lastIndexOf("_"))}_${"0".repeat(32)}`,
    ]) {
      const r = await change(token, { paymentMethodId, selectedPlan: "premium" });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    expect(await usage(token)).toMatchObject({ plan: "free", maxMinutes: 30 });
    expect((await payments(uid)).filter((p) => p.status === "succeeded")).toEqual([]);
  });
});

describe("upgrades with the local test cards", () => {
  it("4242: free → standard now, charged 20/30 of $15; then → premium with the saved card", async () => {
    const { uid, token } = await user();
    const r = await change(token, { paymentMethodId: await card(token, "4242424242424242"), selectedPlan: "standard" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: "upgraded",
      nextBillingDate: RESET,
      plan: "standard",
      pendingPlan: null,
      charged: { amount: 10, currency: "USD" },
      message: expect.stringContaining("Upgraded to standard"),
    });
    expect(await usage(token)).toMatchObject({
      plan: "standard",
      maxMinutes: 600,
      resetDate: RESET,
      pendingPlan: null,
    });

    const up = await change(token, { paymentMethodId: null, selectedPlan: "premium" });
    expect([up.status, up.body.plan, up.body.charged]).toEqual([200, "premium", { amount: 10, currency: "USD" }]);
    const rows = await payments(uid);
    expect(rows.map((p) => [p.kind, p.status, p.amount, p.currency, p.idempotencyKey])).toEqual([
      ["upgrade", "succeeded", 1000, "USD", `upgrade:${uid}:standard:${PERIOD_START}:1`],
      ["upgrade", "succeeded", 1000, "USD", `upgrade:${uid}:premium:${PERIOD_START}:1`],
    ]);
    const cur = await api(s.url, "GET", "/api/subscriptions/current", { token });
    expect(cur.body).toEqual({
      plan: "premium",
      pendingPlan: null,
      nextBillingDate: RESET,
      autoRenew: true,
      currency: "USD",
      lastRenewalFailure: null,
      paymentMethod: { brand: "visa", last4: "4242" },
      pendingPayment: null,
      provider: "local",
    });
  });

  it("0002: declined (402 PAYMENT_DECLINED), nothing changes; another card then succeeds", async () => {
    const { uid, token } = await user();
    const r = await change(token, { paymentMethodId: await card(token, "4000000000000002"), selectedPlan: "premium" });
    expect([r.status, r.body.error.code, r.body.error.message]).toEqual([
      402,
      "PAYMENT_DECLINED",
      "Your card was declined.",
    ]);
    expect((await usage(token)).plan).toBe("free");
    const cur = await api(s.url, "GET", "/api/subscriptions/current", { token });
    expect(cur.body.paymentMethod).toBeNull();

    const ok = await change(token, { paymentMethodId: await card(token, "4242424242424242"), selectedPlan: "premium" });
    expect([ok.status, ok.body.charged]).toEqual([200, { amount: 20, currency: "USD" }]);
    expect((await payments(uid)).map((p) => [p.status, p.attempt])).toEqual([
      ["failed", 1],
      ["succeeded", 2],
    ]);
  });

  it("3155: needs the 3-D Secure step; the confirmation applies the upgrade once", async () => {
    const { uid, token } = await user();
    const pm = await card(token, "4000002500003155");
    const r = await change(token, { paymentMethodId: pm, selectedPlan: "premium" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: "requires_action",
      plan: "free",
      clientSecret: expect.stringMatching(/^pi_local_[0-9a-f]+_secret_[0-9a-f]+$/),
      charged: { amount: 20, currency: "USD" },
    });
    expect((await usage(token)).plan).toBe("free");
    const cur = await api(s.url, "GET", "/api/subscriptions/current", { token });
    expect(cur.body.pendingPayment).toEqual({ clientSecret: r.body.clientSecret, plan: "premium", amount: 20 });

    // The same request again (e.g. a double click) hands back the same challenge, no second payment.
    const again = await change(token, { paymentMethodId: pm, selectedPlan: "premium" });
    expect(again.body.clientSecret).toBe(r.body.clientSecret);

    const other = await user();
    const foreign = await api(s.url, "POST", "/api/billing/local/confirm", {
      token: other.token,
      body: { clientSecret: r.body.clientSecret },
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, "PAYMENT_NOT_FOUND"]);

    const ok = await api(s.url, "POST", "/api/billing/local/confirm", {
      token,
      body: { clientSecret: r.body.clientSecret },
    });
    expect(ok.body).toEqual({ status: "succeeded", plan: "premium", nextBillingDate: RESET });
    const twice = await api(s.url, "POST", "/api/billing/local/confirm", {
      token,
      body: { clientSecret: r.body.clientSecret },
    });
    expect(twice.body).toEqual(ok.body);
    expect((await payments(uid)).map((p) => p.status)).toEqual(["succeeded"]);
    expect(await s.t.db.processedWebhookEvent.count({ where: { id: { startsWith: "evt_local_" } } })).toBeGreaterThan(
      0,
    );
    expect((await usage(token)).plan).toBe("premium");
  });

  it("3155 with a failed challenge: 402 PAYMENT_AUTHENTICATION_FAILED, the plan stays", async () => {
    const { token } = await user();
    const r = await change(token, { paymentMethodId: await card(token, "4000002500003155"), selectedPlan: "standard" });
    const failed = await api(s.url, "POST", "/api/billing/local/confirm", {
      token,
      body: { clientSecret: r.body.clientSecret, action: "fail" },
    });
    expect([failed.status, failed.body.error.code]).toEqual([402, "PAYMENT_AUTHENTICATION_FAILED"]);
    expect((await usage(token)).plan).toBe("free");
  });

  it("a paid plan without a card is refused with CARD_REQUIRED", async () => {
    const { token } = await user();
    const r = await change(token, { paymentMethodId: null, selectedPlan: "standard" });
    expect([r.status, r.body.error.code]).toEqual([400, "CARD_REQUIRED"]);
    const bogus = await change(token, { paymentMethodId: "pm_card_visa", selectedPlan: "standard" });
    expect([bogus.status, bogus.body.error.code]).toEqual([400, "PAYMENT_METHOD_INVALID"]);
  });

  it("a Japanese user pays in yen; that currency sticks to the subscription", async () => {
    const { uid, token } = await user({ language: "ja" });
    const r = await change(token, {
      paymentMethodId: await card(token, "4242424242424242"),
      selectedPlan: "standard",
      lang: "ja",
    });
    expect(r.body.charged).toEqual({ amount: 1320, currency: "JPY" }); // 1980 × 20/30
    const plans = await api(s.url, "GET", "/api/subscriptions/plans?lang=en", { token });
    expect(plans.body.currency).toBe("JPY");
    const up = await change(token, { paymentMethodId: null, selectedPlan: "premium", lang: "en" });
    expect(up.body.charged).toEqual({ amount: 1333, currency: "JPY" }); // 2000 × 20/30 = 1333.33
    expect((await payments(uid)).map((p) => p.amount)).toEqual([1320, 1333]);
  });
});

describe("an upgrade right after the reset date, before the sweep", () => {
  it("renews the paid plan for the new period first, then charges the upgrade", async () => {
    const { uid, token } = await createUser(s, { periodStart: "2027-03-01T09:00:00.000Z" });
    const pm = await card(token, "4242424242424242");
    await s.t.db.user.update({ where: { id: uid }, data: { plan: "standard" } });
    await s.t.db.subscription.create({
      data: {
        userId: uid,
        provider: "local",
        currency: "USD",
        customerId: `cus_local_${uid}`,
        paymentMethodId: pm,
        cardBrand: "visa",
        cardLast4: "4242",
        paidUntil: new Date(PERIOD_START), // paid through the March period only
      },
    });
    const r = await change(token, { paymentMethodId: null, selectedPlan: "premium" });
    expect([r.status, r.body.plan, r.body.nextBillingDate]).toEqual([200, "premium", RESET]);
    expect((await payments(uid)).map((p) => [p.kind, p.plan, p.amount, p.idempotencyKey])).toEqual([
      ["renewal", "standard", 1500, `renewal:${uid}:${PERIOD_START}`],
      ["upgrade", "premium", 1000, `upgrade:${uid}:premium:${PERIOD_START}:1`],
    ]);
    const sub = await s.t.db.subscription.findUniqueOrThrow({ where: { userId: uid } });
    expect(sub.paidUntil?.toISOString()).toBe(RESET);
  });
});

describe("scheduled switches", () => {
  it("same plan → 409 SAME_PLAN; downgrade and free are scheduled for the reset date; re-choosing cancels", async () => {
    const { token } = await user();
    const same = await change(token, { paymentMethodId: null, selectedPlan: "free" });
    expect([same.status, same.body.error.code]).toEqual([409, "SAME_PLAN"]);

    await change(token, { paymentMethodId: await card(token, "4242424242424242"), selectedPlan: "premium" });
    const down = await change(token, { paymentMethodId: null, selectedPlan: "standard" });
    expect(down.body).toMatchObject({
      status: "scheduled",
      plan: "premium",
      pendingPlan: { plan: "standard", date: RESET },
      charged: null,
    });
    expect(await usage(token)).toMatchObject({ plan: "premium", pendingPlan: { plan: "standard", date: RESET } });

    const keep = await change(token, { paymentMethodId: null, selectedPlan: "premium" });
    expect([keep.status, keep.body.status, keep.body.pendingPlan]).toEqual([200, "pending_cancelled", null]);
    expect((await usage(token)).pendingPlan).toBeNull();

    const free = await change(token, { paymentMethodId: null, selectedPlan: "free" });
    expect(free.body.pendingPlan).toEqual({ plan: "free", date: RESET });
    const cur = await api(s.url, "GET", "/api/subscriptions/current", { token });
    expect([cur.body.autoRenew, cur.body.pendingPlan]).toEqual([false, { plan: "free", date: RESET }]);
  });
});

describe("concurrency", () => {
  it("two simultaneous identical upgrades charge once", async () => {
    const { uid, token } = await user();
    const pm = await card(token, "4242424242424242");
    const [a, b] = await Promise.all([
      change(token, { paymentMethodId: pm, selectedPlan: "premium" }),
      change(token, { paymentMethodId: pm, selectedPlan: "premium" }),
    ]);
    const statuses = [a.status, b.status].sort();
    // The second either joins the first one's payment (200) or arrives after it (409 SAME_PLAN).
    expect(statuses[0]).toBe(200);
    if (statuses[1] !== 200) expect([a, b].find((r) => r.status !== 200)!.body.error.code).toBe("SAME_PLAN");
    const rows = await payments(uid);
    expect(rows.map((p) => [p.status, p.amount])).toEqual([["succeeded", 2000]]);
    expect((await usage(token)).plan).toBe("premium");
  });
});

describe("the internal API", () => {
  it("refuses calls that do not carry the internal token; the local provider has no webhooks", async () => {
    const { uid } = await user();
    const direct = await api(s.billingUrl, "GET", "/api/subscriptions/current", { headers: { "x-kikitori-uid": uid } });
    expect([direct.status, direct.body.error.code]).toEqual([401, "UNAUTHENTICATED"]);
    const hook = await api(s.url, "POST", "/api/billing/webhook", {
      rawBody: "{}",
      headers: { "stripe-signature": "t=1,v1=00" },
    });
    expect([hook.status, hook.body.error.code]).toEqual([400, "WEBHOOK_SIGNATURE_INVALID"]);
  });
});

describe("the gateway when billing is not usable", () => {
  it("answers 503 SERVICE_UNAVAILABLE (not 401) for a wrong internal token or an unreachable billing", async () => {
    const envs: Array<Record<string, string>> = [
      { BILLING_URL: s.billingUrl, INTERNAL_TOKEN: "not-the-shared-secret" },
      { BILLING_URL: "http://127.0.0.1:9" },
    ];
    for (const env of envs) {
      const gw = await startTestGateway({ env });
      try {
        const token = await gw.gw.signer.sign({ sub: randomUUID(), email: "x@example.com", email_verified: true });
        const r = await api(gw.url, "GET", "/api/subscriptions/current", { token });
        expect([r.status, r.body.error.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
      } finally {
        await gw.close();
      }
    }
  });
});
