/**
 * Plan ordering, upgrade/downgrade rules, the price difference between paid plans and price
 * formatting. Pure (Intl only). The plans and their order come from the catalogue in
 * @kikitori/shared (plans.ts); each rule takes another catalogue for tests. Prices always come from
 * GET /api/subscriptions/plans.
 */
import { type Language, PLAN_CATALOGUE, type PlanCatalogue, type PlanName, RTL_LANGUAGES } from "@kikitori/shared";

export const PLAN_ORDER: readonly PlanName[] = PLAN_CATALOGUE.names;

export interface PlanPrice<N extends string = PlanName> {
  name: N;
  price: number;
}

export type PlanChange = "none" | "upgrade" | "downgrade";

export function isPlanName(v: unknown): v is PlanName {
  return PLAN_CATALOGUE.has(v);
}

export function planRank(plan: string, plans: PlanCatalogue = PLAN_CATALOGUE): number {
  return plans.rank(plan);
}

export function isPaidPlan(plan: string, plans: PlanCatalogue = PLAN_CATALOGUE): boolean {
  return plans.isPaid(plan);
}

/** An upgrade applies at once (prorated charge); a downgrade or a switch to free waits for the reset date. */
export function planChange(current: string, target: string, plans: PlanCatalogue = PLAN_CATALOGUE): PlanChange {
  const d = planRank(target, plans) - planRank(current, plans);
  if (d === 0) return "none";
  return d > 0 ? "upgrade" : "downgrade";
}

/** The plans of the answer in the catalogue's order; unknown names, duplicates and bad prices dropped. */
export function sortPlans<T extends PlanPrice<string>>(
  plans: readonly T[],
  catalogue: PlanCatalogue = PLAN_CATALOGUE,
): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const p of plans) {
    if (!catalogue.has(p.name) || seen.has(p.name) || !Number.isFinite(p.price) || p.price < 0) continue;
    seen.add(p.name);
    out.push(p);
  }
  return out.sort((a, b) => planRank(a.name, catalogue) - planRank(b.name, catalogue));
}

export function priceOf(plans: readonly PlanPrice<string>[], plan: string): number | undefined {
  return plans.find((p) => p.name === plan)?.price;
}

export interface PriceDifference {
  /** Always positive. */
  amount: number;
  direction: "increase" | "decrease";
}

/**
 * The monthly price difference, shown only when switching between two paid plans (either way); null
 * for a switch from or to the free plan, for the same plan, or when a price is unknown.
 */
export function priceDifference(
  prices: readonly PlanPrice<string>[],
  current: string,
  target: string,
  plans: PlanCatalogue = PLAN_CATALOGUE,
): PriceDifference | null {
  if (current === target || !isPaidPlan(current, plans) || !isPaidPlan(target, plans)) return null;
  const from = priceOf(prices, current);
  const to = priceOf(prices, target);
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
