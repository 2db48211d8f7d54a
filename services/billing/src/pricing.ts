// Prices, currencies and proration: pure functions (docs/decisions/0006-billing.md). The plans, their
// order and their default prices come from the catalogue in @kikitori/shared (plans.ts); every
// function takes another catalogue for tests.
import { PLAN_CATALOGUE, type PlanCatalogue, type PlanName, planSettingKey } from "@kikitori/shared";

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

/** Monthly price of each plan per currency, in minor units; the free plan is always 0. */
export type PriceTable<N extends string = PlanName> = Record<string, Record<N, number>>;

export interface Pricing<N extends string = PlanName> {
  prices: PriceTable<N>;
  /** Interface language → currency (default: ja → JPY). */
  languageCurrency: Record<string, string>;
  defaultCurrency: string;
}

export function currencyForLanguage(pricing: Pricing<string>, lang: string | null | undefined): string {
  const base = (lang ?? "").toLowerCase().split(/[-_]/)[0];
  const c = pricing.languageCurrency[base];
  return c && pricing.prices[c] ? c : pricing.defaultCurrency;
}

export function priceOf<N extends string>(pricing: Pricing<N>, plan: N, currency: string): number {
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

/** The setting of one plan's price in one currency: PRICE_USD_STANDARD. */
export function priceSetting(currency: string, plan: string): string {
  return `PRICE_${currency}_${planSettingKey(plan)}`;
}

/** "A and B", "A, B and C". */
function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** What a currency needs: one price setting per paid plan ("PRICE_EUR_STANDARD and PRICE_EUR_PREMIUM"). */
export function requiredPriceSettings(currency: string, plans: PlanCatalogue = PLAN_CATALOGUE): string {
  return listed(plans.paidNames.map((p) => priceSetting(currency, p)));
}

/** The catalogue's prices as settings (major units): { PRICE_USD_STANDARD: "15", … }. */
export function defaultPriceSettings(plans: PlanCatalogue = PLAN_CATALOGUE): Record<string, string> {
  const out: Record<string, string> = {};
  for (const plan of plans.paidNames) {
    for (const [currency, price] of Object.entries(plans.entry(plan).prices)) out[priceSetting(currency, plan)] = price;
  }
  return out;
}

/**
 * Reads PRICE_<CURRENCY>_<PLAN> (major units, one per paid plan of the catalogue) from the
 * environment, over the defaults. A currency must have every paid plan's price.
 */
export function priceTableFrom<N extends string = PlanName>(
  env: Record<string, unknown>,
  defaults: Record<string, string> = defaultPriceSettings(),
  plans: PlanCatalogue<N> = PLAN_CATALOGUE as PlanCatalogue as PlanCatalogue<N>,
): PriceTable<N> {
  const byKey = new Map(plans.paidNames.map((p) => [planSettingKey(p), p]));
  const raw: Record<string, Partial<Record<N, string>>> = {};
  const put = (key: string, value: unknown) => {
    const m = /^PRICE_([A-Z]{3})_([A-Z][A-Z0-9_]*)$/.exec(key);
    const plan = m && byKey.get(m[2]);
    if (!m || !plan || value === undefined || value === "") return;
    raw[m[1]] ??= {};
    raw[m[1]][plan] = String(value);
  };
  for (const [k, v] of Object.entries(defaults)) put(k, v);
  for (const [k, v] of Object.entries(env)) put(k, v);
  const table: PriceTable<N> = {};
  for (const [currency, row] of Object.entries(raw)) {
    if (plans.paidNames.some((p) => row[p] === undefined)) {
      const n = plans.paidNames.length;
      const all = n === 2 ? "both " : n > 2 ? "all " : "";
      throw new Error(`${requiredPriceSettings(currency, plans)} must ${all}be set`);
    }
    const prices = { [plans.freePlan]: 0 } as Record<N, number>;
    for (const p of plans.paidNames) prices[p] = toMinor(row[p] as string, currency);
    table[currency] = prices;
  }
  return table;
}

export type ChangeKind = "same" | "upgrade" | "downgrade";

/** A later plan of the catalogue is an upgrade (applied now); an earlier one is scheduled. */
export function changeKind(from: string, to: string, plans: PlanCatalogue = PLAN_CATALOGUE): ChangeKind {
  if (from === to) return "same";
  return plans.rank(to) > plans.rank(from) ? "upgrade" : "downgrade";
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

export function quoteChange<N extends string>(args: {
  from: N;
  to: N;
  currency: string;
  pricing: Pricing<N>;
  now: Date;
  periodStart: Date;
  resetDate: Date;
  plans?: PlanCatalogue<N>;
}): ChangeQuote {
  const kind = changeKind(args.from, args.to, args.plans);
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

/** Every plan of the catalogue in order with its monthly price in the currency (major units). */
export function planOffers<N extends string = PlanName>(
  pricing: Pricing<N>,
  currency: string,
  plans: PlanCatalogue<N> = PLAN_CATALOGUE as PlanCatalogue as PlanCatalogue<N>,
) {
  return plans.names.map((name) => ({ name, price: toMajor(priceOf(pricing, name, currency), currency) }));
}
