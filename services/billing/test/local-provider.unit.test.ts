// The embedded card provider behaves like Stripe's test cards; the billing config reads prices,
// currencies and the provider.

import { luhnValid } from "@kikitori/shared";
import { parseConfig } from "@kikitori/shared/server";
import { billingEnv } from "../src/config.ts";
import { currencyForLanguage, parseLanguageCurrency } from "../src/pricing.ts";
import { cardBrand, LocalCardProvider } from "../src/providers/local.ts";

const now = new Date("2027-03-10T00:00:00.000Z");
const provider = new LocalCardProvider("the service's secret");
const card = (number: string, over: Partial<{ expMonth: number; expYear: number; cvc: string }> = {}) =>
  provider.issuePaymentMethod({ number, expMonth: 12, expYear: 2030, cvc: "123", ...over }, now);

describe("local card form", () => {
  it("checks the number (Luhn), the expiry and the CVC like a card form", () => {
    expect(luhnValid("4242424242424242")).toBe(true);
    expect(luhnValid("4242424242424241")).toBe(false);
    expect(card("4242 4242 4242 4242")).toMatchObject({ brand: "visa", last4: "4242" });
    expect(card("4242 4242 4242 4242").id).toMatch(/^pm_local_visa_4242_[0-9a-f]{16}_[0-9a-f]{32}$/);
    expect(() => card("4242 4242 4242 4241")).toThrow(expect.objectContaining({ code: "CARD_NUMBER_INVALID" }));
    // Luhn-valid, but no issuer: all zeros, and a number of no known brand.
    expect(() => card("0000 0000 0000 0000")).toThrow(expect.objectContaining({ code: "CARD_NUMBER_INVALID" }));
    expect(() => card("9999 9999 9999 9995")).toThrow(expect.objectContaining({ code: "CARD_NUMBER_INVALID" }));
    expect(() => card("1234")).toThrow(expect.objectContaining({ code: "CARD_NUMBER_INVALID" }));
    expect(() => card("4242424242424242", { expMonth: 2, expYear: 2027 })).toThrow(
      expect.objectContaining({ code: "CARD_EXPIRY_INVALID" }),
    );
    expect(card("4242424242424242", { expMonth: 3, expYear: 27 }).last4).toBe("4242"); // valid through March
    expect(() => card("4242424242424242", { expMonth: 13 })).toThrow(
      expect.objectContaining({ code: "CARD_EXPIRY_INVALID" }),
    );
    expect(() => card("4242424242424242", { cvc: "12" })).toThrow(
      expect.objectContaining({ code: "CARD_CVC_INVALID" }),
    );
    expect(card("378282246310005", { cvc: "1234" }).brand).toBe("amex");
    expect([cardBrand("5555555555554444"), cardBrand("3566002020360505"), cardBrand("6011111111111117")]).toEqual([
      "mastercard",
      "jcb",
      "discover",
    ]);
  });
});

describe("LocalCardProvider", () => {
  const charge = (number: string, offSession = false, idempotencyKey = "k1") =>
    provider.charge({
      amount: 1500,
      currency: "USD",
      customerId: "cus_local_x",
      paymentMethodId: card(number).id,
      idempotencyKey,
      offSession,
      metadata: {},
      description: "test",
    });

  it("4242 succeeds; the intent id follows from the idempotency key", async () => {
    const a = await charge("4242424242424242", false, "upgrade:x:1");
    const b = await charge("4242424242424242", false, "upgrade:x:1");
    expect(a).toEqual({ status: "succeeded", intentId: expect.stringMatching(/^pi_local_/) });
    expect(b.intentId).toBe(a.intentId);
  });

  it("4000 0000 0000 0002 is declined", async () => {
    expect(await charge("4000000000000002")).toMatchObject({
      status: "failed",
      code: "card_declined",
      declineCode: "generic_decline",
    });
    expect(await charge("4000000000009995")).toMatchObject({ status: "failed", declineCode: "insufficient_funds" });
  });

  it("4000 0025 0000 3155 needs 3-D Secure on the user's own payment and fails off-session", async () => {
    const r = await charge("4000002500003155");
    expect(r.status).toBe("requires_action");
    if (r.status === "requires_action") expect(r.clientSecret).toMatch(/^pi_local_[0-9a-f]{24}_secret_[0-9a-f]{24}$/);
    expect(await charge("4000002500003155", true)).toMatchObject({ status: "failed", code: "authentication_required" });
  });

  it("refuses payment-method ids it did not issue: made up, altered, or signed under another key", async () => {
    const issued = card("4242424242424242").id;
    const body = issued.slice(0, issued.lastIndexOf("_"));
    const other = new LocalCardProvider("another secret").issuePaymentMethod(
      { number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123" },
      now,
    ).id;
    const invented = [
      "pm_card_visa",
      "pm_local_visa_4242_0000000000000000",
      `pm_local_visa_4242_0000000000000000_${"0".repeat(32)}`,
      `${body.replace("4242", "0002")}${issued.slice(body.length)}`,
      other,
    ];
    for (const id of invented) {
      await expect(provider.attachPaymentMethod("cus", id)).rejects.toMatchObject({ code: "payment_method_invalid" });
      expect(
        await provider.charge({
          amount: 3000,
          currency: "USD",
          customerId: "cus",
          paymentMethodId: id,
          idempotencyKey: `k-${id}`,
          offSession: false,
          metadata: {},
          description: "test",
        }),
      ).toMatchObject({ status: "failed", code: "payment_method_invalid" });
    }
    expect(await provider.attachPaymentMethod("cus", issued)).toMatchObject({ last4: "4242" });
  });
});

describe("billing config", () => {
  it("defaults to the local provider, USD 0/15/30 and JPY 0/1980/3980 with ja → JPY", () => {
    const cfg = parseConfig("billing", billingEnv, {});
    expect(cfg.PAYMENT_PROVIDER).toBe("local");
    expect(cfg.pricing.prices).toEqual({
      USD: { free: 0, standard: 1500, premium: 3000 },
      JPY: { free: 0, standard: 1980, premium: 3980 },
    });
    expect(["ja", "ja-JP", "en", "de", undefined].map((l) => currencyForLanguage(cfg.pricing, l))).toEqual([
      "JPY",
      "JPY",
      "USD",
      "USD",
      "USD",
    ]);
    expect(cfg.quotas.free).toEqual({ maxMinutes: 30, maxSummaries: 3, maxTitleRuns: 3 });
    expect(cfg.internalToken).toBeUndefined();
  });

  it("takes prices, currencies and the language map from the environment", () => {
    const cfg = parseConfig("billing", billingEnv, {
      PRICE_EUR_STANDARD: "14.50",
      PRICE_EUR_PREMIUM: "29",
      PRICE_USD_STANDARD: "12",
      LANGUAGE_CURRENCY: "ja:JPY, de:EUR, fr:EUR",
      JWT_SECRET: "x".repeat(40),
    });
    expect(cfg.pricing.prices.EUR).toEqual({ free: 0, standard: 1450, premium: 2900 });
    expect(cfg.pricing.prices.USD.standard).toBe(1200);
    expect(currencyForLanguage(cfg.pricing, "fr")).toBe("EUR");
    expect(cfg.internalToken).toMatch(/^[\w-]{43}$/);
    expect(parseLanguageCurrency("zh:jpy")).toEqual({ zh: "JPY" });
  });

  it("refuses the local provider in production unless ALLOW_TEST_PAYMENTS=true, naming the setting", () => {
    const prod = { NODE_ENV: "production", JWT_SECRET: "x".repeat(40) };
    expect(() => parseConfig("billing", billingEnv, { ...prod, PAYMENT_PROVIDER: "local" })).toThrow(
      /PAYMENT_PROVIDER[\s\S]*ALLOW_TEST_PAYMENTS=true/,
    );
    expect(() => parseConfig("billing", billingEnv, prod)).toThrow(/ALLOW_TEST_PAYMENTS/);
    expect(
      parseConfig("billing", billingEnv, { ...prod, PAYMENT_PROVIDER: "local", ALLOW_TEST_PAYMENTS: "true" })
        .PAYMENT_PROVIDER,
    ).toBe("local");
    expect(parseConfig("billing", billingEnv, { PAYMENT_PROVIDER: "local" }).PAYMENT_PROVIDER).toBe("local");
  });

  it("names every bad variable", () => {
    expect(() =>
      parseConfig("billing", billingEnv, { PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: "sk_test_x" }),
    ).toThrow(/STRIPE_PUBLISHABLE_KEY[\s\S]*STRIPE_WEBHOOK_SECRET/);
    expect(() => parseConfig("billing", billingEnv, { PRICE_JPY_STANDARD: "1980.5" })).toThrow(/JPY has 0 decimal/);
    expect(() => parseConfig("billing", billingEnv, { LANGUAGE_CURRENCY: "de:EUR" })).toThrow(/no prices for EUR/);
  });
});
