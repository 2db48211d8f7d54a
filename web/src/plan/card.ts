import { luhnValid } from "@kikitori/shared";
/**
 * The local provider's card form: number grouping, brand, Luhn, MM/YY expiry and CVC checks. Pure.
 * (With the Stripe provider the card field is Stripe's own element and none of this is used.)
 */

export type CardBrand = "visa" | "mastercard" | "amex" | "discover" | "jcb" | "diners" | "unionpay" | "unknown";

export function digitsOnly(value: string): string {
  return value.replace(/\D+/g, "");
}

export function detectBrand(digits: string): CardBrand {
  if (/^4/.test(digits)) return "visa";
  if (/^3[47]/.test(digits)) return "amex";
  if (/^3(0[0-5]|[68])/.test(digits)) return "diners";
  if (/^35(2[89]|[3-8])/.test(digits)) return "jcb";
  if (/^(5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/.test(digits)) return "mastercard";
  if (/^(6011|65|64[4-9]|622)/.test(digits)) return "discover";
  if (/^62/.test(digits)) return "unionpay";
  return "unknown";
}

/** Group sizes in which the number is shown. */
export function cardGroups(brand: CardBrand): number[] {
  if (brand === "amex") return [4, 6, 5];
  if (brand === "diners") return [4, 6, 4];
  return [4, 4, 4, 4, 3];
}

/** Valid lengths per brand. */
export function cardLengths(brand: CardBrand): number[] {
  switch (brand) {
    case "amex":
      return [15];
    case "diners":
      return [14];
    case "visa":
      return [13, 16, 19];
    case "mastercard":
      return [16];
    case "unionpay":
    case "discover":
    case "jcb":
      return [16, 17, 18, 19];
    default:
      return [16];
  }
}

/** "4242424242424242" or "4242-4242 42…" → "4242 4242 4242 4242", cut at the brand's longest length. */
export function formatCardNumber(input: string): string {
  const brand = detectBrand(digitsOnly(input));
  const digits = digitsOnly(input).slice(0, Math.max(...cardLengths(brand), 16));
  const parts: string[] = [];
  let i = 0;
  for (const size of cardGroups(brand)) {
    if (i >= digits.length) break;
    parts.push(digits.slice(i, i + size));
    i += size;
  }
  return parts.join(" ");
}

export type NumberProblem = "empty" | "incomplete" | "invalid";

export function checkCardNumber(input: string): NumberProblem | null {
  const digits = digitsOnly(input);
  if (!digits) return "empty";
  const lengths = cardLengths(detectBrand(digits));
  if (digits.length < Math.min(...lengths)) return "incomplete";
  if (!lengths.includes(digits.length) || !luhnValid(digits)) return "invalid";
  return null;
}

/** Typing "1225" gives "12/25"; a first digit above 1 is a month: "4" → "04". Never traps backspace. */
export function formatExpiry(input: string): string {
  let digits = digitsOnly(input);
  if (/^[2-9]/.test(digits)) digits = `0${digits}`;
  digits = digits.slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)}/${digits.slice(2)}` : digits;
}

export interface Expiry {
  month: number;
  /** Four digits. */
  year: number;
}

/** "MM/YY" (also "MM / YY", "MMYY", "MM/YYYY") → month and four-digit year; null when malformed. */
export function parseExpiry(input: string): Expiry | null {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(input);
  if (!m) return null;
  const month = Number(m[1]);
  const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

export type ExpiryProblem = "empty" | "invalid" | "expired";

/** A card is valid through the last day of its expiry month (compared in the user's local time). */
export function checkExpiry(input: string, now: Date = new Date()): ExpiryProblem | null {
  if (!input.trim()) return "empty";
  const e = parseExpiry(input);
  if (!e) return "invalid";
  const nowMonths = now.getFullYear() * 12 + now.getMonth();
  const expMonths = e.year * 12 + (e.month - 1);
  if (expMonths < nowMonths) return "expired";
  if (expMonths > nowMonths + 12 * 20) return "invalid";
  return null;
}

export type CvcProblem = "empty" | "invalid";

export function cvcLength(brand: CardBrand): number {
  return brand === "amex" ? 4 : 3;
}

export function checkCvc(input: string, brand: CardBrand = "unknown"): CvcProblem | null {
  const v = input.trim();
  if (!v) return "empty";
  // As the card networks (and the local provider) check it: 4 digits for Amex, 3 for the others.
  const ok = brand === "amex" ? /^\d{4}$/.test(v) : /^\d{3}$/.test(v);
  return ok ? null : "invalid";
}

export interface CardInput {
  number: string;
  expiry: string;
  cvc: string;
}

export interface CardProblems {
  number?: NumberProblem;
  expiry?: ExpiryProblem;
  cvc?: CvcProblem;
}

export function checkCard(card: CardInput, now: Date = new Date()): CardProblems {
  const out: CardProblems = {};
  const number = checkCardNumber(card.number);
  const expiry = checkExpiry(card.expiry, now);
  const cvc = checkCvc(card.cvc, detectBrand(digitsOnly(card.number)));
  if (number) out.number = number;
  if (expiry) out.expiry = expiry;
  if (cvc) out.cvc = cvc;
  return out;
}

/** Nothing typed at all: "card info could not be retrieved" (messages.cardInfoMissing). */
export function isCardEmpty(card: CardInput): boolean {
  return !digitsOnly(card.number) && !card.expiry.trim() && !card.cvc.trim();
}

/** The body of POST /api/billing/local/payment-methods; only call after checkCard found nothing. */
export function paymentMethodBody(card: CardInput): { number: string; expMonth: number; expYear: number; cvc: string } {
  const e = parseExpiry(card.expiry);
  return { number: digitsOnly(card.number), expMonth: e?.month ?? 0, expYear: e?.year ?? 0, cvc: card.cvc.trim() };
}

/** The translation key that explains a card problem to the user. */
export function cardProblemKey(problems: CardProblems): string | null {
  if (problems.number === "empty") return "payment.cardInfoMissing";
  if (problems.number === "incomplete") return "plan.card.errors.numberIncomplete";
  if (problems.number === "invalid") return "plan.card.errors.numberInvalid";
  if (problems.expiry === "expired") return "plan.card.errors.expired";
  if (problems.expiry) return "plan.card.errors.expiryInvalid";
  if (problems.cvc) return "plan.card.errors.cvcInvalid";
  return null;
}

const BRAND_LABELS: Record<string, string> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  american_express: "American Express",
  discover: "Discover",
  jcb: "JCB",
  diners: "Diners Club",
  unionpay: "UnionPay",
};

/** A card brand as the networks write it ("visa" → "Visa"); unknown brands are shown as given. */
export function brandLabel(brand: string): string {
  return BRAND_LABELS[brand.trim().toLowerCase()] ?? brand;
}
