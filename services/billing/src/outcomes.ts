// Payment outcomes (docs/decisions/0006-billing.md): a succeeded or failed payment is written once,
// in one transaction guarded by the payment's state, together with the provider event that reported
// it; the API error a failure code answers with.
import { AppError, FREE_PLAN } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { ensureCurrentPeriod } from "@kikitori/shared/server";
import { type BillingDeps, notify } from "./context.ts";

export type ProviderEventRecord = { id: string; type: string };

/**
 * Writes a successful payment's effect once: an upgrade switches the plan (only if the user is
 * still on the plan and period it was priced for; otherwise the payment is refunded), a renewal
 * extends the paid time. `event` records a provider event in the same transaction.
 */
export async function applySuccess(
  deps: BillingDeps,
  paymentId: string,
  intentId: string | null,
  event: ProviderEventRecord | null,
): Promise<"applied" | "duplicate" | "already" | "refund"> {
  const { db } = deps;
  const now = deps.now();
  const before = await db.payment.findUnique({ where: { id: paymentId } });
  if (!before) return "already";
  await ensureCurrentPeriod(db, before.userId, now);
  const outcome = await db.$transaction(async (tx) => {
    if (event && !(await recordEvent(tx, deps.provider.name, event))) return "duplicate" as const;
    const p = await tx.payment.findUniqueOrThrow({ where: { id: paymentId } });
    if (p.appliedAt || p.status === "refunded") return "already" as const;
    const intent = intentId ?? p.intentId;
    if (p.kind === "upgrade") {
      const { count } =
        p.status === "canceled"
          ? { count: 0 }
          : await tx.user.updateMany({
              where: { id: p.userId, plan: p.fromPlan, periodStart: p.periodStart },
              data: { plan: p.plan, pendingPlan: null, pendingPlanAt: null },
            });
      if (count === 0) {
        await tx.payment.update({
          where: { id: p.id },
          data: { status: "succeeded", intentId: intent, failureCode: "not_applicable" },
        });
        return "refund" as const;
      }
      await tx.subscription.update({
        where: { userId: p.userId },
        data: {
          currency: p.currency,
          paymentMethodId: p.paymentMethodId,
          cardBrand: p.cardBrand,
          cardLast4: p.cardLast4,
          paidUntil: p.periodEnd,
          lastFailureCode: null,
          lastFailureReason: null,
          lastFailureAt: null,
        },
      });
    } else {
      const sub = await tx.subscription.findUnique({ where: { userId: p.userId } });
      if (sub) {
        await tx.subscription.update({
          where: { userId: p.userId },
          data: {
            paidUntil: sub.paidUntil && sub.paidUntil > p.periodEnd ? sub.paidUntil : p.periodEnd,
            lastFailureCode: null,
            lastFailureReason: null,
            lastFailureAt: null,
          },
        });
      }
    }
    await tx.payment.update({
      where: { id: p.id },
      data: { status: "succeeded", intentId: intent, appliedAt: now, failureCode: null, failureMessage: null },
    });
    return "applied" as const;
  });
  if (outcome === "applied") {
    deps.onPayment?.(before.kind, "succeeded");
    const money = { uid: before.userId, plan: before.plan, amountMinor: before.amount, currency: before.currency };
    await notify(
      deps,
      before.kind === "upgrade"
        ? { kind: "planUpgraded", ...money, renewsOn: before.periodEnd }
        : { kind: "planRenewed", ...money, nextRenewal: before.periodEnd },
    );
  }
  if (outcome === "refund") {
    const p = await db.payment.findUniqueOrThrow({ where: { id: paymentId } });
    deps.logger.warn({ paymentId, intentId: p.intentId }, "paid upgrade no longer applies; refunding");
    if (p.intentId && p.amount > 0) await deps.provider.refund(p.intentId, `refund:${p.id}`);
    await db.payment.update({ where: { id: p.id }, data: { status: "refunded" } });
    deps.onPayment?.(p.kind, "refunded");
  }
  return outcome;
}

/** Records a failed payment; a failed renewal moves the user to the free plan and keeps the reason. */
export async function applyFailure(
  deps: BillingDeps,
  paymentId: string,
  code: string,
  message: string,
  event: ProviderEventRecord | null,
  intentId: string | null = null,
): Promise<"applied" | "duplicate" | "already"> {
  const now = deps.now();
  const outcome = await deps.db.$transaction(async (tx) => {
    if (event && !(await recordEvent(tx, deps.provider.name, event))) return "duplicate" as const;
    const p = await tx.payment.findUniqueOrThrow({ where: { id: paymentId } });
    if (p.appliedAt || !["created", "requires_action"].includes(p.status)) return "already" as const;
    await tx.payment.update({
      where: { id: p.id },
      data: {
        status: "failed",
        failureCode: code.slice(0, 64),
        failureMessage: message.slice(0, 500),
        appliedAt: now,
        ...(intentId && !p.intentId ? { intentId } : {}),
      },
    });
    if (p.kind === "renewal") {
      await tx.user.updateMany({
        where: { id: p.userId, plan: { not: FREE_PLAN } },
        data: { plan: FREE_PLAN, pendingPlan: null, pendingPlanAt: null },
      });
      await tx.subscription.updateMany({
        where: { userId: p.userId },
        data: {
          paidUntil: null,
          lastFailureCode: code.slice(0, 64),
          lastFailureReason: message.slice(0, 500),
          lastFailureAt: now,
        },
      });
    }
    return "applied" as const;
  });
  if (outcome === "applied") {
    const p = await deps.db.payment.findUnique({ where: { id: paymentId } });
    if (p) deps.onPayment?.(p.kind, "failed");
    if (p?.kind === "renewal") await notify(deps, { kind: "renewalFailed", uid: p.userId, plan: p.plan });
  }
  return outcome;
}

/** Maps a provider failure code to the API's error code. */
export function paymentError(code: string, message: string): AppError {
  if (code === "authentication_required" || code === "authentication_failed") {
    return new AppError("PAYMENT_AUTHENTICATION_FAILED", message, { details: { reason: code } });
  }
  if (code === "payment_method_invalid" || code === "resource_missing" || code === "invalid_request") {
    return new AppError("PAYMENT_METHOD_INVALID", message, { details: { reason: code } });
  }
  if (code === "payment_failed" || code === "canceled" || code === "superseded" || code === "expired") {
    return new AppError("PAYMENT_FAILED", message, { details: { reason: code } });
  }
  return new AppError("PAYMENT_DECLINED", message, { details: { reason: code } });
}

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Inserts the event id; false when it was already processed. */
export async function recordEvent(tx: Tx, provider: string, event: ProviderEventRecord): Promise<boolean> {
  const n = await tx.$executeRaw`INSERT INTO "processed_webhook_events" ("id", "provider", "type")
    VALUES (${event.id.slice(0, 255)}, ${provider}, ${event.type.slice(0, 100)}) ON CONFLICT ("id") DO NOTHING`;
  return n === 1;
}
