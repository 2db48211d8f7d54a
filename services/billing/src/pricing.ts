// Prices, currencies and proration: pure functions (docs/decisions/0006-billing.md).
import { PLANS, type PlanName } from "@kikitori/shared";

/** Currencies without a minor unit (Stripe's zero-decimal list). */
const ZERO_DECIMAL = new Set([
  "BIF",
  "CLP",
  "DJF",
  "GNF",
  "JPY",
  "KMF",
  "KRW",
  "MGA",
  "PYG",
  "RWF",
  "UGX",
  "VND",
  "VUV",
  "XAF",
  "XOF",
  "XPF",
]);
const THREE_DECIMAL = new Set(["BHD", "JOD", "KWD", "OMR", "TND"]);

/** Digits of the currency's minor unit: JPY 0 (whole yen), USD 2 (cents). */
export function minorDigits(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/**
 * The card networks' smallest charge (Stripe's minimums, in minor units). A prorated difference
 * below it is not charged: the upgrade is free for that short rest of the period.
 */
const MIN_CHARGE: Record<string, number> = { USD: 50, EUR: 50, GBP: 30, JPY: 50, CAD: 50, AUD: 50 };
export function minimumCharge(currency: string): number {
  return MIN_CHARGE[currency] ?? 10 ** minorDigits(currency) / 2;
}

/** "15", "9.99", "1980" → minor units (1500, 999, 1980 for JPY). Throws on more decimals than the currency has. */
export function toMinor(major: string | number, currency: string): number {
  const text = typeof major === "number" ? String(major) : major.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`not a price: "${text}"`);
  const digits = minorDigits(currency);
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (frac.length > digits) throw new Error(`${currency} has ${digits} decimal places: "${text}"`);
  return Number(m[1]) * 10 ** digits + (frac ? Number(frac.padEnd(digits, "0")) : 0);
}

/** Minor units → a number in major units (999 USD → 9.99; 1980 JPY → 1980). */
export function toMajor(minor: number, currency: string): number {
  const digits = minorDigits(currency);
  return digits === 0 ? minor : Number((minor / 10 ** digits).toFixed(digits));
}

/** Monthly price of each plan per currency, in minor units; free is always 0. */
export type PriceTable = Record<string, Record<PlanName, number>>;

export interface Pricing {
  prices: PriceTable;
  /** Interface language → currency (default: ja → JPY). */
  languageCurrency: Record<string, string>;
  defaultCurrency: string;
}

export function currencyForLanguage(pricing: Pricing, lang: string | null | undefined): string {
  const base = (lang ?? "").toLowerCase().split(/[-_]/)[0];
  const c = pricing.languageCurrency[base];
  return c && pricing.prices[c] ? c : pricing.defaultCurrency;
}

export function priceOf(pricing: Pricing, plan: PlanName, currency: string): number {
  const row = pricing.prices[currency];
  if (!row) throw new Error(`no prices for ${currency}`);
  return row[plan];
}

/** "ja:JPY, zh:JPY" → { ja: "JPY", zh: "JPY" }. */
export function parseLanguageCurrency(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    const item = part.trim();
    if (!item) continue;
    const m = /^([a-zA-Z]{2,3}):([a-zA-Z]{3})$/.exec(item);
    if (!m) throw new Error(`"${item}" is not lang:CURRENCY`);
    out[m[1].toLowerCase()] = m[2].toUpperCase();
  }
  return out;
}

/** Reads PRICE_<CURRENCY>_<STANDARD|PREMIUM> (major units) from the environment, over the defaults. */
export function priceTableFrom(env: Record<string, unknown>, defaults: Record<string, string>): PriceTable {
  const raw: Record<string, Partial<Record<PlanName, string>>> = {};
  const put = (key: string, value: unknown) => {
    const m = /^PRICE_([A-Z]{3})_(STANDARD|PREMIUM)$/.exec(key);
    if (!m || value === undefined || value === "") return;
    raw[m[1]] ??= {};
    raw[m[1]][m[2].toLowerCase() as PlanName] = String(value);
  };
  for (const [k, v] of Object.entries(defaults)) put(k, v);
  for (const [k, v] of Object.entries(env)) put(k, v);
  const table: PriceTable = {};
  for (const [currency, row] of Object.entries(raw)) {
    if (row.standard === undefined || row.premium === undefined) {
      throw new Error(`PRICE_${currency}_STANDARD and PRICE_${currency}_PREMIUM must both be set`);
    }
    table[currency] = { free: 0, standard: toMinor(row.standard, currency), premium: toMinor(row.premium, currency) };
  }
  return table;
}

const RANK: Record<PlanName, number> = { free: 0, standard: 1, premium: 2 };
export type ChangeKind = "same" | "upgrade" | "downgrade";

/** free → standard → premium is an upgrade (applied now); anything lower is scheduled. */
export function changeKind(from: PlanName, to: PlanName): ChangeKind {
  if (from === to) return "same";
  return RANK[to] > RANK[from] ? "upgrade" : "downgrade";
}

const DAY_MS = 86_400_000;
/** Days since 1970-01-01 of the UTC calendar date of `d`. */
export function utcDayNumber(d: Date): number {
  return Math.floor(d.getTime() / DAY_MS);
}

/** Calendar days of the period, from its start date to its reset date (28–31). */
export function periodDays(periodStart: Date, resetDate: Date): number {
  return Math.max(1, utcDayNumber(resetDate) - utcDayNumber(periodStart));
}

/** Unused days: from today's UTC date to the reset date (today counts), within [0, period days]. */
export function unusedDays(now: Date, periodStart: Date, resetDate: Date): number {
  const total = periodDays(periodStart, resetDate);
  return Math.min(total, Math.max(0, utcDayNumber(resetDate) - utcDayNumber(now)));
}

/** round_half_up(numerator / denominator) for non-negative integers, exactly. */
export function divRoundHalfUp(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

/**
 * amount = round_currency((price_new − price_old) × unused_days / period_days), computed in the
 * currency's minor unit with half-up rounding (to the cent for USD, to the yen for JPY).
 */
export function prorate(diffMinor: number, unused: number, total: number): number {
  if (diffMinor <= 0 || unused <= 0) return 0;
  return divRoundHalfUp(diffMinor * unused, total);
}

export interface ChangeQuote {
  kind: ChangeKind;
  currency: string;
  /** What the formula gives, in minor units (0 for anything but an upgrade). */
  proratedMinor: number;
  /** What is charged now: proratedMinor, or 0 when it is below the card networks' minimum. */
  chargeMinor: number;
  unusedDays: number;
  periodDays: number;
  /** When the new plan takes effect: now for an upgrade, the reset date otherwise. */
  effectiveAt: Date;
}

export function quoteChange(args: {
  from: PlanName;
  to: PlanName;
  currency: string;
  pricing: Pricing;
  now: Date;
  periodStart: Date;
  resetDate: Date;
}): ChangeQuote {
  const kind = changeKind(args.from, args.to);
  const total = periodDays(args.periodStart, args.resetDate);
  const unused = unusedDays(args.now, args.periodStart, args.resetDate);
  let proratedMinor = 0;
  if (kind === "upgrade") {
    const diff = priceOf(args.pricing, args.to, args.currency) - priceOf(args.pricing, args.from, args.currency);
    proratedMinor = prorate(diff, unused, total);
  }
  const chargeMinor = proratedMinor >= minimumCharge(args.currency) ? proratedMinor : 0;
  return {
    kind,
    currency: args.currency,
    proratedMinor,
    chargeMinor,
    unusedDays: unused,
    periodDays: total,
    effectiveAt: kind === "upgrade" ? args.now : args.resetDate,
  };
}

export function planOffers(pricing: Pricing, currency: string) {
  return PLANS.map((name) => ({ name, price: toMajor(priceOf(pricing, name, currency), currency) }));
}
