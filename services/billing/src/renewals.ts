// Monthly renewals of paid plans and the clean-up of abandoned upgrade payments, run by the
// maintenance sweep (sweep.ts; docs/decisions/0006-billing.md).
import { randomUUID } from "node:crypto";
import { PAID_PLANS, PLAN_CATALOGUE } from "@kikitori/shared";
import { effectiveUsage } from "@kikitori/shared/server";
import type { BillingDeps, UserWithSub } from "./context.ts";
import { applyFailure, applySuccess } from "./outcomes.ts";
import { priceOf } from "./pricing.ts";
import type { ChargeResult } from "./providers/port.ts";
import { ProviderError } from "./providers/port.ts";

export interface RenewResult {
  due: number;
  renewed: number;
  failed: number;
  /** Left for the next sweep (provider unreachable, row changed meanwhile). */
  deferred: number;
}

/**
 * Charges every paid plan whose paid time has ended, for the period that contains `now`, with the
 * idempotency key `renewal:<uid>:<periodStart>`. Success extends the paid time to the reset
 * date; a failure moves the user to the free plan and records why. Running twice changes nothing.
 */
export async function renewDue(deps: BillingDeps, now: Date, opts: { batchSize?: number } = {}): Promise<RenewResult> {
  const batchSize = opts.batchSize ?? 200;
  const result: RenewResult = { due: 0, renewed: 0, failed: 0, deferred: 0 };
  let after: string | undefined;
  for (;;) {
    const users = await deps.db.user.findMany({
      where: {
        plan: { in: [...PAID_PLANS] },
        subscription: { paidUntil: { lte: now } },
        ...(after ? { id: { gt: after } } : {}),
      },
      include: { subscription: true },
      orderBy: { id: "asc" },
      take: batchSize,
    });
    for (const u of users) {
      const r = await renewOne(deps, u, now);
      if (r === "none") continue;
      result.due++;
      result[r]++;
    }
    if (users.length < batchSize) break;
    after = users[users.length - 1].id;
  }
  return result;
}

/** Renews one user's paid plan for the period containing `now` (nothing when it is paid or free). */
export async function renewOne(
  deps: BillingDeps,
  u: UserWithSub,
  now: Date,
): Promise<"renewed" | "failed" | "deferred" | "none"> {
  const { db, provider, logger } = deps;
  const sub = u.subscription!;
  const eff = effectiveUsage(u, now);
  if (!PLAN_CATALOGUE.isPaid(eff.plan) || (sub.paidUntil && sub.paidUntil >= eff.resetDate)) return "none";
  const currency = deps.pricing.prices[sub.currency] ? sub.currency : deps.pricing.defaultCurrency;
  const key = `renewal:${u.id}:${eff.periodStart.toISOString()}`;
  let payment = await db.payment.findUnique({ where: { idempotencyKey: key } });
  if (!payment) {
    try {
      payment = await db.payment.create({
        data: {
          id: randomUUID(),
          userId: u.id,
          provider: provider.name,
          kind: "renewal",
          status: "created",
          fromPlan: eff.plan,
          plan: eff.plan,
          amount: priceOf(deps.pricing, eff.plan, currency),
          currency,
          periodStart: eff.periodStart,
          periodEnd: eff.resetDate,
          attemptKey: key,
          idempotencyKey: key,
          paymentMethodId: sub.paymentMethodId,
          cardBrand: sub.cardBrand,
          cardLast4: sub.cardLast4,
        },
      });
    } catch (err) {
      if ((err as { code?: string }).code !== "P2002") throw err;
      payment = await db.payment.findUniqueOrThrow({ where: { idempotencyKey: key } });
    }
  }
  if (payment.status === "succeeded") {
    await applySuccess(deps, payment.id, null, null);
    return "renewed";
  }
  if (payment.status !== "created") {
    await applyFailure(deps, payment.id, payment.failureCode ?? "payment_failed", payment.failureMessage ?? "", null);
    return "failed";
  }
  if (!sub.paymentMethodId || !sub.customerId) {
    await applyFailure(deps, payment.id, "no_payment_method", "No card is saved for the renewal.", null);
    return "failed";
  }
  let r: ChargeResult;
  try {
    r =
      payment.amount === 0
        ? { status: "succeeded", intentId: "" }
        : await provider.charge({
            amount: payment.amount,
            currency: payment.currency,
            customerId: sub.customerId,
            paymentMethodId: sub.paymentMethodId,
            idempotencyKey: key,
            offSession: true,
            metadata: { paymentId: payment.id, uid: u.id, kind: "renewal", plan: payment.plan },
            description: `${payment.plan} plan, period from ${eff.periodStart.toISOString().slice(0, 10)}`,
          });
  } catch (err) {
    if (err instanceof ProviderError && err.kind === "unavailable") {
      logger.warn({ err, uid: u.id }, "renewal deferred: card provider unreachable");
      return "deferred";
    }
    if (!(err instanceof ProviderError)) throw err;
    r = { status: "failed", intentId: null, code: err.declineCode ?? err.code, message: err.message };
  }
  if (r.status === "succeeded") {
    await applySuccess(deps, payment.id, r.intentId || null, null);
    logger.info({ uid: u.id, amount: payment.amount, currency: payment.currency }, "renewed");
    return "renewed";
  }
  if (r.status === "requires_action") {
    await provider.cancel(r.intentId).catch(() => {});
    r = {
      status: "failed",
      intentId: r.intentId,
      code: "authentication_required",
      message: "The card requires authentication, which is not possible for an automatic renewal.",
    };
  }
  await applyFailure(
    deps,
    payment.id,
    r.status === "failed" ? (r.declineCode ?? r.code) : "payment_failed",
    r.message,
    null,
    r.intentId,
  );
  logger.info({ uid: u.id, code: r.code }, "renewal failed: moved to free");
  return "failed";
}

/** Upgrades still waiting for 3-D Secure when their period has ended are withdrawn. */
export async function expireAbandoned(deps: BillingDeps, now: Date): Promise<number> {
  const stale = await deps.db.payment.findMany({
    where: { kind: "upgrade", status: { in: ["requires_action", "created"] }, periodEnd: { lte: now } },
    take: 500,
  });
  let n = 0;
  for (const p of stale) {
    const { count } = await deps.db.payment.updateMany({
      where: { id: p.id, status: p.status },
      data: {
        status: "canceled",
        failureCode: "expired",
        failureMessage: "The period this payment was for has ended.",
      },
    });
    if (count && p.intentId) await deps.provider.cancel(p.intentId).catch(() => {});
    n += count;
  }
  return n;
}
