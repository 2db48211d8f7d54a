// Billing trust through the gateway with the embedded card provider: the quote the confirmation step
// shows before any charge, the confirmed amount the charge must match, replacing the card on file and
// the PDF receipts. The clock stands on 2027-04-11 10:00 UTC; periods start 2027-04-01 09:00 (30 days,
// 20 unused), so Standard → Premium costs 20/30 of $15 = $10.
import { inflateSync } from "node:zlib";
import { jest } from "@jest/globals";
import { api } from "../../../tests/support/gateway.ts";
import { addLocalCard, type BillingStack, changePlan, createUser, makeClock, startBillingStack } from "./harness.ts";

jest.setTimeout(60_000);

let s: BillingStack;
const PERIOD_START = "2027-04-01T09:00:00.000Z";

beforeAll(async () => {
  s = await startBillingStack({
    clock: makeClock("2027-04-11T10:00:00.000Z"),
    env: {
      BILLING_SELLER_NAME: "Kikitori Test GmbH",
      BILLING_SELLER_ADDRESS: "Hauptstrasse 1 | 10115 Berlin | Germany",
      BILLING_SELLER_EMAIL: "billing@kikitori.test",
      BILLING_SELLER_TAX_ID: "DE123456789",
      BILLING_TAX_RATE: "19",
      BILLING_TAX_NAME: "VAT",
    },
  });
});
afterAll(async () => {
  await s?.close();
});

const user = () => createUser(s, { periodStart: PERIOD_START });
const quote = (token: string, plan: string) =>
  api(s.url, "GET", `/api/subscriptions/quote?plan=${plan}&lang=en`, { token });
const payments = (uid: string) => s.t.db.payment.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } });

/** A Standard user paying with the Visa 4242 (the upgrade from Free costs 20/30 of $15). */
async function standardUser() {
  const u = await user();
  const pm = await addLocalCard(s, u.token, "4242424242424242");
  const r = await changePlan(s, u.token, { selectedPlan: "standard", paymentMethodId: pm, lang: "en" });
  expect([r.status, r.body.status]).toEqual([200, "upgraded"]);
  return u;
}

/** The text drawn on a PDF made by pdf-lib: its (deflated) content streams' hex strings, decoded. */
function pdfText(bytes: Buffer): string {
  const raw = bytes.toString("latin1");
  const out: string[] = [];
  for (const m of raw.matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)) {
    let body = m[1] ?? "";
    try {
      body = inflateSync(Buffer.from(body, "latin1")).toString("latin1");
    } catch {}
    for (const h of body.matchAll(/<([0-9A-Fa-f]+)>\s*Tj/g))
      out.push(Buffer.from(h[1] ?? "", "hex").toString("latin1"));
  }
  return out.join("\n");
}

describe("quote before any charge", () => {
  it("gives the amount due now, the monthly price, the dates and the card that would be charged", async () => {
    const { uid, token } = await standardUser();
    const before = (await payments(uid)).length;
    const q = await quote(token, "premium");
    expect(q.status).toBe(200);
    expect(q.body).toMatchObject({
      kind: "upgrade",
      fromPlan: "standard",
      plan: "premium",
      currency: "USD",
      amountNow: 10,
      monthlyPrice: 30,
      nextBillingDate: "2027-05-01T09:00:00.000Z",
      card: { brand: "visa", last4: "4242" },
    });
    // Asking is free: no payment was started.
    expect((await payments(uid)).length).toBe(before);

    const free = await quote(token, "free");
    expect(free.body).toMatchObject({ kind: "free", amountNow: 0, effectiveDate: "2027-05-01T09:00:00.000Z" });
    expect((await quote(token, "standard")).body).toMatchObject({ kind: "same", amountNow: 0 });
  });

  it("has no card for a user who never paid, and refuses an unknown plan or a missing sign-in", async () => {
    const { token } = await user();
    const q = await quote(token, "premium");
    expect(q.body).toMatchObject({ kind: "upgrade", amountNow: 20, card: null });
    expect((await quote(token, "platinum")).status).toBe(400);
    expect((await api(s.url, "GET", "/api/subscriptions/quote?plan=premium")).status).toBe(401);
  });
});

describe("the confirmed amount", () => {
  it("charges nothing when it differs from the amount due now (409 PRICE_CHANGED), and charges it when it matches", async () => {
    const { uid, token } = await standardUser();
    const before = (await payments(uid)).length;
    const wrong = await changePlan(s, token, { selectedPlan: "premium", paymentMethodId: null, confirmedAmount: 9 });
    expect([wrong.status, wrong.body.error.code]).toEqual([409, "PRICE_CHANGED"]);
    expect(wrong.body.error.details).toMatchObject({ amount: 10, currency: "USD", confirmed: 9 });
    expect((await payments(uid)).length).toBe(before);
    expect((await s.t.db.user.findUniqueOrThrow({ where: { id: uid } })).plan).toBe("standard");

    const ok = await changePlan(s, token, { selectedPlan: "premium", paymentMethodId: null, confirmedAmount: 10 });
    expect([ok.status, ok.body.status]).toEqual([200, "upgraded"]);
    const last = (await payments(uid)).at(-1);
    expect([last?.status, last?.amount, last?.cardLast4]).toEqual(["succeeded", 1000, "4242"]);
  });
});

describe("changing the card on file", () => {
  it("replaces the card without charging, and the next upgrade uses the new one", async () => {
    const { uid, token } = await standardUser();
    const before = (await payments(uid)).length;
    const mc = await addLocalCard(s, token, "5555555555554444");
    const r = await api(s.url, "POST", "/api/subscriptions/payment-method", { token, body: { paymentMethodId: mc } });
    expect(r.status).toBe(200);
    expect(r.body.paymentMethod).toEqual({ brand: "mastercard", last4: "4444" });
    expect((await payments(uid)).length).toBe(before);
    const cur = await api(s.url, "GET", "/api/subscriptions/current?lang=en", { token });
    expect(cur.body.paymentMethod).toMatchObject({ brand: "mastercard", last4: "4444" });
    expect((await quote(token, "premium")).body.card).toEqual({ brand: "mastercard", last4: "4444" });

    const up = await changePlan(s, token, { selectedPlan: "premium", paymentMethodId: null, confirmedAmount: 10 });
    expect(up.body.status).toBe("upgraded");
    expect((await payments(uid)).at(-1)?.cardLast4).toBe("4444");
  });

  it("refuses an invented payment-method id with a clear 4xx and keeps the old card", async () => {
    const { token } = await standardUser();
    const r = await api(s.url, "POST", "/api/subscriptions/payment-method", {
      token,
      body: { paymentMethodId: "pm_local_visa_4242_0000000000000000" },
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    const cur = await api(s.url, "GET", "/api/subscriptions/current?lang=en", { token });
    expect(cur.body.paymentMethod).toMatchObject({ last4: "4242" });
    expect((await api(s.url, "POST", "/api/subscriptions/payment-method", { token, body: {} })).status).toBe(400);
  });
});

describe("PDF receipts", () => {
  it("serves a paid payment's receipt with the invoice number, seller, buyer and tax lines", async () => {
    const { uid, token } = await standardUser();
    const up = await changePlan(s, token, { selectedPlan: "premium", paymentMethodId: null, confirmedAmount: 10 });
    expect(up.body.status).toBe("upgraded");
    const paid = (await payments(uid)).at(-1);
    if (!paid) throw new Error("no payment");
    const res = await fetch(`${s.url}/api/billing/receipts/${paid.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    // Paid on the billing clock's day.
    const number = `KIK-20270411-${paid.id.slice(0, 8).toUpperCase()}`;
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="receipt-${number}.pdf"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const text = pdfText(bytes);
    for (const line of [
      "RECEIPT",
      number,
      "Kikitori Test GmbH",
      "Hauptstrasse 1",
      "10115 Berlin",
      "Tax ID: DE123456789",
      `${uid}@example.com`,
      "Upgrade from Standard to Premium plan (prorated for the rest of the period)",
      "Service period: April 11, 2027 to May 1, 2027",
      "Subtotal (excluding tax)",
      "USD 8.40",
      "VAT (19%)",
      "USD 1.60",
      "Total paid",
      "USD 10.00",
      "Paid with Visa ending in 4242.",
    ]) {
      expect(text).toContain(line);
    }
  });

  it("is not found for another user's payment, an unknown id or a malformed one", async () => {
    const a = await standardUser();
    const b = await user();
    const paid = (await payments(a.uid)).at(-1);
    const other = await api(s.url, "GET", `/api/billing/receipts/${paid?.id}`, { token: b.token });
    expect([other.status, other.body.error.code]).toEqual([404, "PAYMENT_NOT_FOUND"]);
    const unknown = await api(s.url, "GET", "/api/billing/receipts/00000000-0000-4000-8000-000000000000", {
      token: a.token,
    });
    expect(unknown.status).toBe(404);
    expect((await api(s.url, "GET", "/api/billing/receipts/nope", { token: a.token })).status).toBe(400);
    expect((await api(s.url, "GET", `/api/billing/receipts/${paid?.id}`)).status).toBe(401);
  });
});
