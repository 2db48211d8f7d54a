// Provider events (docs/decisions/0006-billing.md): verified webhooks, the local provider's 3-D
// Secure step and its cards, and the reconciliation of payments whose webhook may have been missed.
// Each event is applied at most once (outcomes.ts records its id in the same transaction).
import { AppError, isUuid, type PlanName } from "@kikitori/shared";
import type { BillingDeps } from "./context.ts";
import { applyFailure, applySuccess, paymentError, recordEvent } from "./outcomes.ts";
import { LocalCardProvider } from "./providers/local.ts";
import type { CardDetails, PaymentEvent } from "./providers/port.ts";

/** A provider event (verified webhook, local confirmation, reconciliation): applied at most once. */
export async function handleEvent(deps: BillingDeps, event: PaymentEvent): Promise<{ result: string }> {
  const { db } = deps;
  const payment =
    (event.paymentId && isUuid(event.paymentId)
      ? await db.payment.findUnique({ where: { id: event.paymentId } })
      : null) ?? (event.intentId ? await db.payment.findUnique({ where: { intentId: event.intentId } }) : null);
  const record = { id: event.id, type: event.providerType };
  if (!payment || event.type === "other") {
    const fresh = await db.$transaction((tx) => recordEvent(tx, deps.provider.name, record));
    return { result: fresh ? "ignored" : "duplicate" };
  }
  if (event.type === "payment.succeeded") {
    return { result: await applySuccess(deps, payment.id, event.intentId, record) };
  }
  if (event.type === "payment.failed") {
    const f = event.failure ?? { code: "payment_failed", message: "The payment failed." };
    return { result: await applyFailure(deps, payment.id, f.code, f.message, record, event.intentId) };
  }
  // payment.canceled
  const result = await db.$transaction(async (tx) => {
    if (!(await recordEvent(tx, deps.provider.name, record))) return "duplicate";
    const { count } = await tx.payment.updateMany({
      where: { id: payment.id, status: { in: ["created", "requires_action"] } },
      data: { status: "canceled", failureCode: "canceled" },
    });
    return count ? "applied" : "already";
  });
  return { result };
}

export async function handleWebhook(
  deps: BillingDeps,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<{ result: string }> {
  let event: PaymentEvent;
  try {
    event = deps.provider.parseWebhook(rawBody, signature);
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, "webhook refused");
    throw new AppError("WEBHOOK_SIGNATURE_INVALID", "The webhook signature is not valid.");
  }
  const out = await handleEvent(deps, event);
  deps.logger.info({ eventId: event.id, type: event.providerType, ...out }, "webhook event");
  return out;
}

/** Payments waiting for 3-D Secure whose webhook may have been missed: ask the provider. */
export async function reconcilePending(deps: BillingDeps, uid: string): Promise<void> {
  const open = await deps.db.payment.findMany({
    where: { userId: uid, status: "requires_action", intentId: { not: null } },
    take: 3,
  });
  for (const p of open) {
    try {
      const r = await deps.provider.retrieve(p.intentId!);
      if (r?.status === "succeeded") {
        await handleEvent(deps, {
          id: `sync_${p.intentId}_succeeded`,
          type: "payment.succeeded",
          providerType: "sync.succeeded",
          intentId: p.intentId,
          paymentId: p.id,
        });
      } else if (r?.status === "failed") {
        await handleEvent(deps, {
          id: `sync_${p.intentId}_failed`,
          type: "payment.failed",
          providerType: "sync.failed",
          intentId: p.intentId,
          paymentId: p.id,
          failure: { code: r.code, message: r.message },
        });
      }
    } catch (err) {
      deps.logger.warn({ err, paymentId: p.id }, "could not reconcile a pending payment");
    }
  }
}

// ---------------------------------------------------------------- local provider

export function createLocalPaymentMethod(
  deps: BillingDeps,
  card: { number: string; expMonth: number; expYear: number; cvc: string },
): CardDetails {
  return requireLocal(deps).issuePaymentMethod(card, deps.now());
}

/** The local 3-D Secure step: delivers the same event a Stripe webhook would. */
export async function localConfirm(
  deps: BillingDeps,
  uid: string,
  body: { clientSecret: string; action?: "complete" | "fail" },
): Promise<{ status: "succeeded"; plan: PlanName; nextBillingDate: string }> {
  requireLocal(deps);
  const p = await deps.db.payment.findUnique({ where: { clientSecret: body.clientSecret } });
  if (!p || p.userId !== uid) throw new AppError("PAYMENT_NOT_FOUND", "No payment is waiting for this confirmation.");
  if (p.status === "requires_action") {
    const fail = body.action === "fail";
    await handleEvent(deps, {
      id: `evt_local_${p.id}`,
      type: fail ? "payment.failed" : "payment.succeeded",
      providerType: fail ? "payment_intent.payment_failed" : "payment_intent.succeeded",
      intentId: p.intentId,
      paymentId: p.id,
      ...(fail
        ? { failure: { code: "authentication_failed", message: "The card's authentication was not completed." } }
        : {}),
    });
  }
  const after = await deps.db.payment.findUniqueOrThrow({ where: { id: p.id } });
  if (after.status === "succeeded" && after.appliedAt) {
    const user = await deps.db.user.findUniqueOrThrow({ where: { id: uid } });
    return { status: "succeeded", plan: user.plan, nextBillingDate: user.resetDate.toISOString() };
  }
  if (after.status === "failed") {
    throw paymentError(after.failureCode ?? "authentication_failed", after.failureMessage ?? "The payment failed.");
  }
  throw new AppError("PAYMENT_FAILED", "This payment is no longer pending.");
}

function requireLocal(deps: BillingDeps): LocalCardProvider {
  if (!(deps.provider instanceof LocalCardProvider)) {
    throw new AppError("NOT_FOUND", "The local card provider is not enabled (PAYMENT_PROVIDER=local).");
  }
  return deps.provider;
}
