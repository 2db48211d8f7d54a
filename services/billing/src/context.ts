// What every part of the billing service shares (docs/decisions/0006-billing.md): its dependencies,
// the user read with a due reset written down first, the currency a user pays in, and the
// plan-change e-mails.
import { AppError, PLAN_CATALOGUE, type PlanName, type PlanQuota } from "@kikitori/shared";
import type { Db, Subscription, User } from "@kikitori/shared/db";
import { dueChanges, ensureCurrentPeriod, type Logger } from "@kikitori/shared/server";
import type { PlanEvent, PlanNotifier } from "./notify.ts";
import { type ChangeQuote, currencyForLanguage, type Pricing, quoteChange } from "./pricing.ts";
import type { CardProvider } from "./providers/port.ts";

/** Who sells (BILLING_SELLER_*) and the tax included in the prices (BILLING_TAX_*), as receipts print them. */
export interface SellerDetails {
  name: string;
  /** Postal address lines. */
  address: string[];
  email: string;
  /** VAT / tax registration number, when the seller has one. */
  taxId?: string;
  /** Percent included in every price (0: no tax is charged). */
  taxRate: number;
  /** What the tax is called on the receipt ("VAT", "GST", "Tax"). */
  taxName: string;
}

export interface BillingDeps {
  db: Db;
  provider: CardProvider;
  pricing: Pricing;
  quotas: Record<PlanName, PlanQuota>;
  logger: Logger;
  /** The clock; tests pass one they control. */
  now: () => Date;
  /** How long a request waits for a concurrent identical payment (PAYMENT_WAIT_MS). */
  paymentWaitMs?: number;
  /** Called once per payment outcome (metrics). */
  onPayment?: (kind: "upgrade" | "renewal", outcome: string) => void;
  /** Plan-change e-mails (notify.ts); none when absent. */
  notifier?: PlanNotifier;
  /** The seller and tax on receipts (BILLING_SELLER_*, BILLING_TAX_*); the app's name alone when absent. */
  seller?: SellerDetails;
}

export type UserWithSub = User & { subscription: Subscription | null };

/** A payment still "created" this long after its last update lost its owner: take it over. */
export const STALE_MS = 60_000;

/** Sends a plan-change e-mail; never throws (see notify.ts). */
export function notify(deps: BillingDeps, event: PlanEvent): Promise<void> {
  return deps.notifier?.(event) ?? Promise.resolve();
}

/** The user with its subscription, with a due reset / plan switch written down first (one read when none is). */
export async function loadUser(deps: BillingDeps, uid: string, now: Date): Promise<UserWithSub> {
  const read = () => deps.db.user.findUnique({ where: { id: uid }, include: { subscription: true } });
  let user = await read();
  if (user && dueChanges(user, now).due) {
    await ensureCurrentPeriod(deps.db, uid, now);
    user = await read();
  }
  if (!user) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
  return user;
}

/** A paying subscription keeps its currency; otherwise the interface language decides. */
export function currencyOf(deps: BillingDeps, user: UserWithSub, lang: string | undefined): string {
  const sub = user.subscription;
  if (PLAN_CATALOGUE.isPaid(user.plan) && sub && deps.pricing.prices[sub.currency]) return sub.currency;
  return currencyForLanguage(deps.pricing, lang ?? user.language);
}

/** What changing the user's plan to `target` costs now, priced from the user's current period. */
export function quoteFor(
  deps: BillingDeps,
  user: UserWithSub,
  target: PlanName,
  currency: string,
  now: Date,
): ChangeQuote {
  return quoteChange({
    from: user.plan,
    to: target,
    currency,
    pricing: deps.pricing,
    now,
    periodStart: user.periodStart,
    resetDate: user.resetDate,
  });
}

export function pendingOf(user: { pendingPlan: PlanName | null; pendingPlanAt: Date | null }) {
  return user.pendingPlan && user.pendingPlanAt
    ? { plan: user.pendingPlan, date: user.pendingPlanAt.toISOString() }
    : null;
}
