/**
 * Plan ordering, upgrade/downgrade rules, the standard↔premium price difference and price formatting
 * (spec sections 4 and 9). Pure (Intl only). Prices always come from GET /api/subscriptions/plans.
 */
import { type Language, type PlanName, RTL_LANGUAGES } from "@kikitori/shared";

export const PLAN_ORDER: readonly PlanName[] = ["free", "standard", "premium"];

export interface PlanPrice {
  name: PlanName;
  price: number;
}

export type PlanChange = "none" | "upgrade" | "downgrade";

export function isPlanName(v: unknown): v is PlanName {
  return typeof v === "string" && (PLAN_ORDER as readonly string[]).includes(v);
}

export function planRank(plan: PlanName): number {
  return PLAN_ORDER.indexOf(plan);
}

export function isPaidPlan(plan: PlanName): boolean {
  return plan !== "free";
}

/** An upgrade applies at once (prorated charge); a downgrade or a switch to free waits for the reset date. */
export function planChange(current: PlanName, target: PlanName): PlanChange {
  const d = planRank(target) - planRank(current);
  if (d === 0) return "none";
  return d > 0 ? "upgrade" : "downgrade";
}

/** The plans of the answer in the order free, standard, premium; unknown names and bad prices dropped. */
export function sortPlans<T extends PlanPrice>(plans: readonly T[]): T[] {
  const seen = new Set<PlanName>();
  const out: T[] = [];
  for (const p of plans) {
    if (!isPlanName(p.name) || seen.has(p.name) || !Number.isFinite(p.price) || p.price < 0) continue;
    seen.add(p.name);
    out.push(p);
  }
  return out.sort((a, b) => planRank(a.name) - planRank(b.name));
}

export function priceOf(plans: readonly PlanPrice[], plan: PlanName): number | undefined {
  return plans.find((p) => p.name === plan)?.price;
}

export interface PriceDifference {
  /** Always positive. */
  amount: number;
  direction: "increase" | "decrease";
}

/**
 * The monthly price difference, shown only when switching between standard and premium (either way);
 * null for every other pair, for the same plan, or when a price is unknown.
 */
export function priceDifference(
  plans: readonly PlanPrice[],
  current: PlanName,
  target: PlanName,
): PriceDifference | null {
  const pair = new Set([current, target]);
  if (current === target || !pair.has("standard") || !pair.has("premium")) return null;
  const from = priceOf(plans, current);
  const to = priceOf(plans, target);
  if (from === undefined || to === undefined || from === to) return null;
  return { amount: roundMoney(Math.abs(to - from)), direction: to > from ? "increase" : "decrease" };
}

/** Avoids float noise such as 14.990000000000002 in differences. */
function roundMoney(v: number): number {
  return Math.round(v * 100) / 100;
}

/**
 * Formats a price in the UI language with the currency of the plans answer. Whole amounts drop the
 * decimals ($15, not $15.00); JPY never has any. Bad locales or currencies fall back to en / a plain number.
 */
export function formatPrice(amount: number, currency: string, locale: string): string {
  const whole = Number.isInteger(amount);
  const options: Intl.NumberFormatOptions = {
    style: "currency",
    currency,
    ...(whole ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {}),
  };
  // In right-to-left text the bidi algorithm reorders "15 US$" into "$US 15": keep the price one
  // left-to-right unit (U+2066 LRI … U+2069 PDI, invisible).
  const isolate = (s: string) => (RTL_LANGUAGES.includes(locale as Language) ? `\u2066${s}\u2069` : s);
  for (const loc of [locale, "en"]) {
    try {
      return isolate(new Intl.NumberFormat(loc, options).format(amount));
    } catch {
      // try the next locale, then give up on the currency
    }
  }
  return `${amount} ${currency}`;
}
