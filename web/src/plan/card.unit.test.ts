import { describe, expect, it } from "@jest/globals";
import { luhnValid } from "@kikitori/shared";
import {
  brandLabel,
  cardProblemKey,
  checkCard,
  checkCardNumber,
  checkCvc,
  checkExpiry,
  detectBrand,
  formatCardNumber,
  formatExpiry,
  isCardEmpty,
  parseExpiry,
  paymentMethodBody,
} from "./card.ts";

const NOW = new Date(2026, 10, 22); // 22 November 2026, local time

describe("card number", () => {
  it("groups in fours as typed", () => {
    expect(formatCardNumber("4242")).toBe("4242");
    expect(formatCardNumber("42424")).toBe("4242 4");
    expect(formatCardNumber("4242424242424242")).toBe("4242 4242 4242 4242");
    expect(formatCardNumber("4242-4242-4242-4242")).toBe("4242 4242 4242 4242");
    expect(formatCardNumber("4000 0025 0000 3155")).toBe("4000 0025 0000 3155");
  });
  it("groups Amex 4-6-5 and stops at 15 digits", () => {
    expect(formatCardNumber("378282246310005999")).toBe("3782 822463 10005");
  });
  it("allows 19-digit Visa numbers in a fifth group", () => {
    expect(formatCardNumber("4242424242424242424")).toBe("4242 4242 4242 4242 424");
  });
  it("detects brands", () => {
    expect(detectBrand("4242")).toBe("visa");
    expect(detectBrand("5555555555554444")).toBe("mastercard");
    expect(detectBrand("2223003122003222")).toBe("mastercard");
    expect(detectBrand("378282246310005")).toBe("amex");
    expect(detectBrand("6011111111111117")).toBe("discover");
    expect(detectBrand("3566002020360505")).toBe("jcb");
    expect(detectBrand("36227206271667")).toBe("diners");
    expect(detectBrand("9999")).toBe("unknown");
  });
  it("checks Luhn", () => {
    expect(luhnValid("4242424242424242")).toBe(true);
    expect(luhnValid("4000000000000002")).toBe(true);
    expect(luhnValid("4000002500003155")).toBe(true);
    expect(luhnValid("4242424242424241")).toBe(false);
    expect(luhnValid("")).toBe(false);
    expect(luhnValid("42a2")).toBe(false);
  });
  it("reports empty, incomplete and invalid numbers", () => {
    expect(checkCardNumber("")).toBe("empty");
    expect(checkCardNumber("4242 4242")).toBe("incomplete");
    expect(checkCardNumber("4242 4242 4242 4241")).toBe("invalid");
    expect(checkCardNumber("4242 4242 4242 4242")).toBeNull();
    expect(checkCardNumber("378282246310005")).toBeNull();
  });
});

describe("expiry MM/YY", () => {
  it("formats as typed without trapping backspace", () => {
    expect(formatExpiry("1")).toBe("1");
    expect(formatExpiry("12")).toBe("12");
    expect(formatExpiry("122")).toBe("12/2");
    expect(formatExpiry("1228")).toBe("12/28");
    expect(formatExpiry("12/289")).toBe("12/28");
    expect(formatExpiry("4")).toBe("04");
    expect(formatExpiry("428")).toBe("04/28");
  });
  it("parses", () => {
    expect(parseExpiry("12/28")).toEqual({ month: 12, year: 2028 });
    expect(parseExpiry("1228")).toEqual({ month: 12, year: 2028 });
    expect(parseExpiry(" 3 / 2031 ")).toEqual({ month: 3, year: 2031 });
    expect(parseExpiry("13/28")).toBeNull();
    expect(parseExpiry("00/28")).toBeNull();
    expect(parseExpiry("12/2")).toBeNull();
  });
  it("a card is valid through its expiry month", () => {
    expect(checkExpiry("11/26", NOW)).toBeNull();
    expect(checkExpiry("10/26", NOW)).toBe("expired");
    expect(checkExpiry("01/27", NOW)).toBeNull();
    expect(checkExpiry("", NOW)).toBe("empty");
    expect(checkExpiry("1", NOW)).toBe("invalid");
    expect(checkExpiry("12/99", NOW)).toBe("invalid");
  });
});

describe("CVC", () => {
  it("3 digits, 4 for Amex", () => {
    expect(checkCvc("123")).toBeNull();
    expect(checkCvc("1234")).toBe("invalid");
    expect(checkCvc("12")).toBe("invalid");
    expect(checkCvc("")).toBe("empty");
    expect(checkCvc("123", "amex")).toBe("invalid");
    expect(checkCvc("1234", "amex")).toBeNull();
  });
});

describe("whole card", () => {
  const good = { number: "4242 4242 4242 4242", expiry: "12/30", cvc: "123" };
  it("accepts the success test card and builds the payment-method body", () => {
    expect(checkCard(good, NOW)).toEqual({});
    expect(cardProblemKey(checkCard(good, NOW))).toBeNull();
    expect(paymentMethodBody(good)).toEqual({ number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123" });
  });
  it("names the first problem in field order", () => {
    expect(cardProblemKey(checkCard({ number: "", expiry: "", cvc: "" }, NOW))).toBe("payment.cardInfoMissing");
    expect(cardProblemKey(checkCard({ ...good, number: "4242" }, NOW))).toBe("plan.card.errors.numberIncomplete");
    expect(cardProblemKey(checkCard({ ...good, number: "4242 4242 4242 4241" }, NOW))).toBe(
      "plan.card.errors.numberInvalid",
    );
    expect(cardProblemKey(checkCard({ ...good, expiry: "01/20" }, NOW))).toBe("plan.card.errors.expired");
    expect(cardProblemKey(checkCard({ ...good, expiry: "1" }, NOW))).toBe("plan.card.errors.expiryInvalid");
    expect(cardProblemKey(checkCard({ ...good, cvc: "1" }, NOW))).toBe("plan.card.errors.cvcInvalid");
  });
  it("knows an untouched card", () => {
    expect(isCardEmpty({ number: " ", expiry: "", cvc: "" })).toBe(true);
    expect(isCardEmpty({ number: "", expiry: "", cvc: "1" })).toBe(false);
  });
});

describe("brand labels", () => {
  it("writes brands as the networks do", () => {
    expect([brandLabel("visa"), brandLabel("AMEX"), brandLabel("jcb"), brandLabel("Elo")]).toEqual([
      "Visa",
      "American Express",
      "JCB",
      "Elo",
    ]);
  });
});
