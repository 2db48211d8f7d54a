// Upgrade payments (docs/decisions/0006-billing.md): the prorated charge of an upgrade, one payment
// per user at a time, a concurrent identical request joining it, and the 3-D Secure answer
// (clientSecret) when the card needs it.
import { randomUUID } from "node:crypto";
import {
  AppError,
  type ChangeSubscriptionBody,
  type ChangeSubscriptionResponse,
  PLAN_CATALOGUE,
  type PlanName,
} from "@kikitori/shared";
import type { Payment } from "@kikitori/shared/db";
import { type BillingDeps, currencyOf, pendingOf, quoteFor, STALE_MS, type UserWithSub } from "./context.ts";
import { applyFailure, applySuccess, paymentError } from "./outcomes.ts";
import { toMajor } from "./pricing.ts";
import type { CardDetails, ChargeResult } from "./providers/port.ts";
import { ProviderError } from "./providers/port.ts";

const POLL_MS = 100;

/** Charges the prorated difference to `target` now and answers with the outcome (or the 3-D Secure step). */
export async function upgrade(
  deps: BillingDeps,
  user: UserWithSub,
  target: PlanName,
  body: ChangeSubscriptionBody,
  now: Date,
): Promise<ChangeSubscriptionResponse> {
  const currency = currencyOf(deps, user, body.lang);
  const quote = quoteFor(deps, user, target, currency, now);
  const paymentMethodId = body.paymentMethodId ?? user.subscription?.paymentMethodId ?? null;
  if (!paymentMethodId) throw new AppError("CARD_REQUIRED", "A card is needed for a paid plan.");
  // The user confirmed an amount: never charge another one (the day or the prices moved meanwhile).
  const amountNow = toMajor(quote.chargeMinor, currency);
  if (body.confirmedAmount !== undefined && Math.abs(body.confirmedAmount - amountNow) > 1e-9) {
    throw new AppError(
      "PRICE_CHANGED",
      `The amount is now ${amountNow} ${currency}, not the ${body.confirmedAmount} confirmed. Nothing was charged.`,
      { details: { amount: amountNow, currency, confirmed: body.confirmedAmount } },
    );
  }

  const attemptKey = `upgrade:${user.id}:${target}:${user.periodStart.toISOString()}`;
  const { payment, owner, superseded } = await reserveUpgrade(deps, user, target, {
    attemptKey,
    amount: quote.chargeMinor,
    currency,
    paymentMethodId,
    now,
  });
  for (const intentId of superseded) {
    await deps.provider.cancel(intentId).catch((err) => {
      deps.logger.warn({ err, intentId }, "could not cancel a superseded payment");
    });
  }
  const settled = owner ? await driveUpgrade(deps, payment, user) : await awaitPayment(deps, payment, user);
  return upgradeAnswer(deps, settled, user.id);
}

/**
 * One upgrade payment per user at a time: under the user's row lock, join the open payment for
 * the same plan and period, refuse while another one is being charged, or create the next attempt
 * (idempotency key `upgrade:<uid>:<plan>:<periodStart>:<attempt>`; unique in the table).
 */
async function reserveUpgrade(
  deps: BillingDeps,
  user: UserWithSub,
  target: PlanName,
  a: { attemptKey: string; amount: number; currency: string; paymentMethodId: string; now: Date },
): Promise<{ payment: Payment; owner: boolean; superseded: string[] }> {
  return deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "users" WHERE "id" = ${user.id}::uuid FOR UPDATE`;
    const superseded: string[] = [];
    const open = await tx.payment.findFirst({
      where: { userId: user.id, kind: "upgrade", status: { in: ["created", "requires_action"] } },
      orderBy: { createdAt: "desc" },
    });
    if (open) {
      const stale = Date.now() - open.updatedAt.getTime() > STALE_MS || open.failureCode === "provider_unavailable";
      if (open.attemptKey === a.attemptKey && open.status === "created") {
        return { payment: open, owner: stale, superseded };
      }
      if (open.attemptKey === a.attemptKey && open.paymentMethodId === a.paymentMethodId) {
        return { payment: open, owner: false, superseded }; // waiting for 3-D Secure: same clientSecret
      }
      if (open.status === "created" && !stale) {
        throw new AppError("PAYMENT_IN_PROGRESS", "Another plan change is being processed. Please wait a moment.");
      }
      // Another plan or another card while a 3-D Secure challenge is open: that one is withdrawn.
      await tx.payment.update({
        where: { id: open.id },
        data: { status: "canceled", failureCode: "superseded", failureMessage: "Replaced by a newer plan change." },
      });
      if (open.intentId) superseded.push(open.intentId);
    }
    const last = await tx.payment.findFirst({ where: { attemptKey: a.attemptKey }, orderBy: { attempt: "desc" } });
    if (last?.status === "succeeded") return { payment: last, owner: false, superseded };
    const attempt = (last?.attempt ?? 0) + 1;
    const payment = await tx.payment.create({
      data: {
        id: randomUUID(),
        userId: user.id,
        provider: deps.provider.name,
        kind: "upgrade",
        status: "created",
        fromPlan: user.plan,
        plan: target,
        amount: a.amount,
        currency: a.currency,
        periodStart: user.periodStart,
        periodEnd: user.resetDate,
        attemptKey: a.attemptKey,
        attempt,
        idempotencyKey: `${a.attemptKey}:${attempt}`,
        paymentMethodId: a.paymentMethodId,
      },
    });
    return { payment, owner: true, superseded };
  });
}

/** Charges a reserved upgrade payment and applies its outcome. */
async function driveUpgrade(deps: BillingDeps, payment: Payment, user: UserWithSub): Promise<Payment> {
  const { db, provider } = deps;
  let card: CardDetails;
  let result: ChargeResult;
  try {
    const customerId = await provider.ensureCustomer(user, user.subscription?.customerId ?? null);
    await db.subscription.upsert({
      where: { userId: user.id },
      create: { userId: user.id, provider: provider.name, currency: payment.currency, customerId },
      update: {
        customerId,
        provider: provider.name,
        ...(PLAN_CATALOGUE.isPaid(user.plan) ? {} : { currency: payment.currency }),
      },
    });
    card = await provider.attachPaymentMethod(customerId, payment.paymentMethodId!);
    await db.payment.update({
      where: { id: payment.id },
      data: { cardBrand: card.brand, cardLast4: card.last4.slice(-4), failureCode: null },
    });
    result =
      payment.amount === 0
        ? { status: "succeeded", intentId: "" }
        : await provider.charge({
            amount: payment.amount,
            currency: payment.currency,
            customerId,
            paymentMethodId: card.id,
            idempotencyKey: payment.idempotencyKey,
            offSession: false,
            metadata: { paymentId: payment.id, uid: user.id, kind: "upgrade", plan: payment.plan },
            description: `Upgrade to ${payment.plan} (prorated)`,
          });
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    if (err.kind === "unavailable") {
      // The charge may or may not have happened: keep the row so a retry re-sends the same key.
      await db.payment.update({
        where: { id: payment.id },
        data: { failureCode: "provider_unavailable", failureMessage: err.message.slice(0, 500) },
      });
      deps.logger.error({ err, paymentId: payment.id }, "card provider unreachable");
      throw new AppError("PAYMENT_PROVIDER_ERROR", "The payment service could not be reached. Please try again.");
    }
    result = { status: "failed", intentId: null, code: err.code, message: err.message, declineCode: err.declineCode };
  }

  if (result.status === "succeeded") {
    await applySuccess(deps, payment.id, result.intentId || null, null);
  } else if (result.status === "requires_action") {
    await db.payment.updateMany({
      where: { id: payment.id, status: "created" },
      data: { status: "requires_action", intentId: result.intentId, clientSecret: result.clientSecret },
    });
    deps.onPayment?.("upgrade", "requires_action");
  } else {
    await applyFailure(deps, payment.id, result.declineCode ?? result.code, result.message, null, result.intentId);
  }
  return db.payment.findUniqueOrThrow({ where: { id: payment.id } });
}

/** A concurrent identical request: wait for the owner's outcome instead of charging again. */
async function awaitPayment(deps: BillingDeps, payment: Payment, user: UserWithSub): Promise<Payment> {
  const deadline = Date.now() + (deps.paymentWaitMs ?? 15_000);
  let p: Payment | null = payment;
  while (p && p.status === "created") {
    if (Date.now() >= deadline) {
      if (Date.now() - p.updatedAt.getTime() > STALE_MS) return driveUpgrade(deps, p, user);
      throw new AppError("PAYMENT_IN_PROGRESS", "This plan change is still being processed. Please wait a moment.");
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
    p = await deps.db.payment.findUnique({ where: { id: payment.id } });
  }
  return p ?? payment;
}

async function upgradeAnswer(deps: BillingDeps, payment: Payment, uid: string): Promise<ChangeSubscriptionResponse> {
  const user = await deps.db.user.findUniqueOrThrow({ where: { id: uid } });
  const charged =
    payment.amount > 0 ? { amount: toMajor(payment.amount, payment.currency), currency: payment.currency } : null;
  switch (payment.status) {
    case "succeeded":
      if (!payment.appliedAt) break;
      return {
        status: "upgraded",
        nextBillingDate: user.resetDate.toISOString(),
        plan: user.plan,
        pendingPlan: pendingOf(user),
        charged,
        message: charged
          ? `Upgraded to ${payment.plan}. Charged ${charged.amount} ${charged.currency} for the rest of this period.`
          : `Upgraded to ${payment.plan}.`,
      };
    case "requires_action":
      return {
        status: "requires_action",
        nextBillingDate: user.resetDate.toISOString(),
        clientSecret: payment.clientSecret ?? "",
        plan: user.plan,
        pendingPlan: pendingOf(user),
        charged,
        message: "Payment requires additional action.",
      };
    case "failed":
      throw paymentError(payment.failureCode ?? "payment_failed", payment.failureMessage ?? "The payment failed.");
    default:
      break;
  }
  throw new AppError("PAYMENT_FAILED", "The plan changed meanwhile; this payment was not used and is refunded.");
}
