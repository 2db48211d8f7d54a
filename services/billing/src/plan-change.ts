// Plan changes (docs/decisions/0006-billing.md, "Plan changes"): an upgrade is charged and applied
// now (upgrade.ts), a downgrade or a switch to free is scheduled for the reset date, and choosing the
// current plan again withdraws a scheduled switch. Also the two reads of the plan screen.
import {
  AppError,
  type ChangeSubscriptionBody,
  type ChangeSubscriptionResponse,
  type CurrentSubscription,
  FREE_PLAN,
  PLAN_CATALOGUE,
  type PlanName,
  type PlanQuote,
  type PlansResponse,
} from "@kikitori/shared";
import { type BillingDeps, currencyOf, loadUser, notify, pendingOf, quoteFor } from "./context.ts";
import { reconcilePending } from "./events.ts";
import { changeKind, currencyForLanguage, planOffers, priceOf, toMajor } from "./pricing.ts";
import { renewOne } from "./renewals.ts";
import { upgrade } from "./upgrade.ts";

/** GET /api/subscriptions/plans: every plan with its price in the caller's currency and its quotas. */
export async function plans(deps: BillingDeps, lang: string | undefined, uid: string | null): Promise<PlansResponse> {
  let currency = currencyForLanguage(deps.pricing, lang);
  if (uid) {
    const user = await deps.db.user.findUnique({ where: { id: uid }, include: { subscription: true } });
    if (user) currency = currencyOf(deps, user, lang);
  }
  return {
    currency,
    plans: planOffers(deps.pricing, currency).map((p) => ({
      ...p,
      maxMinutes: deps.quotas[p.name].maxMinutes,
      maxSummaries: deps.quotas[p.name].maxSummaries,
      maxTitleRuns: deps.quotas[p.name].maxTitleRuns,
    })),
  };
}

/** GET /api/subscriptions/current, after asking the provider about payments still in 3-D Secure. */
export async function current(deps: BillingDeps, uid: string, lang?: string): Promise<CurrentSubscription> {
  const now = deps.now();
  await reconcilePending(deps, uid);
  const user = await loadUser(deps, uid, now);
  const sub = user.subscription;
  const pending = await deps.db.payment.findFirst({
    where: { userId: uid, kind: "upgrade", status: "requires_action", clientSecret: { not: null } },
    orderBy: { createdAt: "desc" },
  });
  return {
    plan: user.plan,
    pendingPlan: pendingOf(user),
    nextBillingDate: user.resetDate.toISOString(),
    autoRenew: PLAN_CATALOGUE.isPaid(user.plan) && (!user.pendingPlan || PLAN_CATALOGUE.isPaid(user.pendingPlan)),
    currency: currencyOf(deps, user, lang),
    lastRenewalFailure:
      sub?.lastFailureAt && sub.lastFailureReason
        ? {
            reason: sub.lastFailureReason,
            code: sub.lastFailureCode ?? "payment_failed",
            date: sub.lastFailureAt.toISOString(),
          }
        : null,
    paymentMethod:
      sub?.paymentMethodId && sub.cardLast4 ? { brand: sub.cardBrand ?? "card", last4: sub.cardLast4 } : null,
    pendingPayment: pending?.clientSecret
      ? { clientSecret: pending.clientSecret, plan: pending.plan, amount: toMajor(pending.amount, pending.currency) }
      : null,
    provider: deps.provider.name,
    ...(deps.provider.publishableKey ? { publishableKey: deps.provider.publishableKey } : {}),
  };
}

/**
 * GET /api/subscriptions/quote: what choosing `target` would do, priced exactly as the change would be
 * (the confirmation step shows it; the change refuses to charge another amount: PRICE_CHANGED).
 */
export async function quote(deps: BillingDeps, uid: string, target: PlanName, lang?: string): Promise<PlanQuote> {
  const now = deps.now();
  const user = await loadUser(deps, uid, now);
  const currency = currencyOf(deps, user, lang);
  const q = quoteFor(deps, user, target, currency, now);
  const sub = user.subscription;
  return {
    kind: q.kind === "downgrade" && target === FREE_PLAN ? "free" : q.kind,
    fromPlan: user.plan,
    plan: target,
    currency,
    amountNow: toMajor(q.chargeMinor, currency),
    monthlyPrice: toMajor(priceOf(deps.pricing, target, currency), currency),
    effectiveDate: q.effectiveAt.toISOString(),
    nextBillingDate: user.resetDate.toISOString(),
    card: sub?.paymentMethodId && sub.cardLast4 ? { brand: sub.cardBrand ?? "card", last4: sub.cardLast4 } : null,
  };
}

/** POST /api/subscriptions/create-or-update-subscription. */
export async function change(
  deps: BillingDeps,
  uid: string,
  body: ChangeSubscriptionBody,
): Promise<ChangeSubscriptionResponse> {
  const now = deps.now();
  let user = await loadUser(deps, uid, now);
  const sub = user.subscription;
  if (PLAN_CATALOGUE.isPaid(user.plan) && sub?.paidUntil && sub.paidUntil < user.resetDate) {
    // The period rolled but the sweep has not renewed it yet: renew first, then price the change.
    await renewOne(deps, user, now);
    user = await loadUser(deps, uid, now);
  }
  const target = body.selectedPlan;
  const kind = changeKind(user.plan, target);

  if (kind === "same") {
    if (!user.pendingPlan) {
      throw new AppError("SAME_PLAN", `You are already on the ${target} plan.`);
    }
    // Choosing the current plan again withdraws the scheduled switch ("keep my plan").
    await deps.db.user.updateMany({
      where: { id: uid, pendingPlan: user.pendingPlan },
      data: { pendingPlan: null, pendingPlanAt: null },
    });
    await notify(deps, { kind: "planCancelled", uid, plan: user.plan });
    return {
      status: "pending_cancelled",
      nextBillingDate: user.resetDate.toISOString(),
      plan: user.plan,
      pendingPlan: null,
      charged: null,
      message: `The scheduled switch to ${user.pendingPlan} was cancelled; you stay on ${user.plan}.`,
    };
  }

  if (kind === "downgrade") {
    const { count } = await deps.db.user.updateMany({
      where: { id: uid, plan: user.plan, resetDate: user.resetDate },
      data: { pendingPlan: target, pendingPlanAt: user.resetDate },
    });
    if (count === 0) throw new AppError("PAYMENT_IN_PROGRESS", "Your plan changed meanwhile. Please reload.");
    const date = user.resetDate.toISOString();
    await notify(deps, { kind: "planScheduled", uid, from: user.plan, to: target, on: user.resetDate });
    return {
      status: "scheduled",
      nextBillingDate: date,
      plan: user.plan,
      pendingPlan: { plan: target, date },
      charged: null,
      message: `Your plan switches to ${target} on ${date.slice(0, 10)}.`,
    };
  }

  return upgrade(deps, user, target, body, now);
}
