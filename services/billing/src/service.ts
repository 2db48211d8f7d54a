// The billing domain: plans, plan changes (prorated upgrades now, downgrades at the reset date),
// payments through the card-provider port, provider events (webhooks, local 3-D Secure) and
// monthly renewals. docs/decisions/0006-billing.md explains the rules.
import { randomUUID } from "node:crypto";
import {
  AppError,
  type ChangeSubscriptionBody,
  type ChangeSubscriptionResponse,
  type CurrentSubscription,
  isUuid,
  type PlanName,
  type PlanQuota,
  type PlansResponse,
} from "@kikitori/shared";
import type { Db, Payment, Subscription, User } from "@kikitori/shared/db";
import { dueChanges, effectiveUsage, ensureCurrentPeriod, type Logger } from "@kikitori/shared/server";
import type { PlanEvent, PlanNotifier } from "./notify.ts";
import { changeKind, currencyForLanguage, type Pricing, planOffers, priceOf, quoteChange, toMajor } from "./pricing.ts";
import { createLocalPaymentMethod } from "./providers/local.ts";
import type { CardDetails, CardProvider, ChargeResult, PaymentEvent } from "./providers/port.ts";
import { ProviderError } from "./providers/port.ts";

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
}

type UserWithSub = User & { subscription: Subscription | null };

/** A payment still "created" this long after its last update lost its owner: take it over. */
const STALE_MS = 60_000;
const POLL_MS = 100;

export interface RenewResult {
  due: number;
  renewed: number;
  failed: number;
  /** Left for the next sweep (provider unreachable, row changed meanwhile). */
  deferred: number;
}

export class BillingService {
  private readonly waitMs: number;
  constructor(private readonly deps: BillingDeps) {
    this.waitMs = deps.paymentWaitMs ?? 15_000;
  }

  /** Sends a plan-change e-mail; never throws (see notify.ts). */
  notify(event: PlanEvent): Promise<void> {
    return this.deps.notifier?.(event) ?? Promise.resolve();
  }

  // ---------------------------------------------------------------- reading

  /** The user with its subscription, with a due reset / plan switch written down first (one read when none is). */
  private async loadUser(uid: string, now: Date): Promise<UserWithSub> {
    const read = () => this.deps.db.user.findUnique({ where: { id: uid }, include: { subscription: true } });
    let user = await read();
    if (user && dueChanges(user, now).due) {
      await ensureCurrentPeriod(this.deps.db, uid, now);
      user = await read();
    }
    if (!user) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
    return user;
  }

  /** A paying subscription keeps its currency; otherwise the interface language decides. */
  private currencyOf(user: UserWithSub, lang: string | undefined): string {
    const sub = user.subscription;
    if (user.plan !== "free" && sub && this.deps.pricing.prices[sub.currency]) return sub.currency;
    return currencyForLanguage(this.deps.pricing, lang ?? user.language);
  }

  async plans(lang: string | undefined, uid: string | null): Promise<PlansResponse> {
    let currency = currencyForLanguage(this.deps.pricing, lang);
    if (uid) {
      const user = await this.deps.db.user.findUnique({ where: { id: uid }, include: { subscription: true } });
      if (user) currency = this.currencyOf(user, lang);
    }
    return {
      currency,
      plans: planOffers(this.deps.pricing, currency).map((p) => ({
        ...p,
        maxMinutes: this.deps.quotas[p.name].maxMinutes,
        maxSummaries: this.deps.quotas[p.name].maxSummaries,
        maxTitleRuns: this.deps.quotas[p.name].maxTitleRuns,
      })),
    };
  }

  async current(uid: string, lang?: string): Promise<CurrentSubscription> {
    const now = this.deps.now();
    await this.reconcilePending(uid);
    const user = await this.loadUser(uid, now);
    const sub = user.subscription;
    const pending = await this.deps.db.payment.findFirst({
      where: { userId: uid, kind: "upgrade", status: "requires_action", clientSecret: { not: null } },
      orderBy: { createdAt: "desc" },
    });
    return {
      plan: user.plan,
      pendingPlan: pendingOf(user),
      nextBillingDate: user.resetDate.toISOString(),
      autoRenew: user.plan !== "free" && user.pendingPlan !== "free",
      currency: this.currencyOf(user, lang),
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
      provider: this.deps.provider.name,
      ...(this.deps.provider.publishableKey ? { publishableKey: this.deps.provider.publishableKey } : {}),
    };
  }

  // ---------------------------------------------------------------- plan changes

  async change(uid: string, body: ChangeSubscriptionBody): Promise<ChangeSubscriptionResponse> {
    const now = this.deps.now();
    let user = await this.loadUser(uid, now);
    const sub = user.subscription;
    if (user.plan !== "free" && sub?.paidUntil && sub.paidUntil < user.resetDate) {
      // The period rolled but the sweep has not renewed it yet: renew first, then price the change.
      await this.renewOne(user, now);
      user = await this.loadUser(uid, now);
    }
    const target = body.selectedPlan;
    const kind = changeKind(user.plan, target);

    if (kind === "same") {
      if (!user.pendingPlan) {
        throw new AppError("SAME_PLAN", `You are already on the ${target} plan.`);
      }
      // Choosing the current plan again withdraws the scheduled switch ("keep my plan").
      await this.deps.db.user.updateMany({
        where: { id: uid, pendingPlan: user.pendingPlan },
        data: { pendingPlan: null, pendingPlanAt: null },
      });
      await this.notify({ kind: "planCancelled", uid, plan: user.plan });
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
      const { count } = await this.deps.db.user.updateMany({
        where: { id: uid, plan: user.plan, resetDate: user.resetDate },
        data: { pendingPlan: target, pendingPlanAt: user.resetDate },
      });
      if (count === 0) throw new AppError("PAYMENT_IN_PROGRESS", "Your plan changed meanwhile. Please reload.");
      const date = user.resetDate.toISOString();
      await this.notify({ kind: "planScheduled", uid, from: user.plan, to: target, on: user.resetDate });
      return {
        status: "scheduled",
        nextBillingDate: date,
        plan: user.plan,
        pendingPlan: { plan: target, date },
        charged: null,
        message: `Your plan switches to ${target} on ${date.slice(0, 10)}.`,
      };
    }

    return this.upgrade(user, target, body, now);
  }

  private async upgrade(
    user: UserWithSub,
    target: PlanName,
    body: ChangeSubscriptionBody,
    now: Date,
  ): Promise<ChangeSubscriptionResponse> {
    const currency = this.currencyOf(user, body.lang);
    const quote = quoteChange({
      from: user.plan,
      to: target,
      currency,
      pricing: this.deps.pricing,
      now,
      periodStart: user.periodStart,
      resetDate: user.resetDate,
    });
    const paymentMethodId = body.paymentMethodId ?? user.subscription?.paymentMethodId ?? null;
    if (!paymentMethodId) throw new AppError("CARD_REQUIRED", "A card is needed for a paid plan.");

    const attemptKey = `upgrade:${user.id}:${target}:${user.periodStart.toISOString()}`;
    const { payment, owner, superseded } = await this.reserveUpgrade(user, target, {
      attemptKey,
      amount: quote.chargeMinor,
      currency,
      paymentMethodId,
      now,
    });
    for (const intentId of superseded) {
      await this.deps.provider.cancel(intentId).catch((err) => {
        this.deps.logger.warn({ err, intentId }, "could not cancel a superseded payment");
      });
    }
    const settled = owner ? await this.driveUpgrade(payment, user) : await this.awaitPayment(payment, user);
    return this.upgradeAnswer(settled, user.id);
  }

  /**
   * One upgrade payment per user at a time: under the user's row lock, join the open payment for
   * the same plan and period, refuse while another one is being charged, or create the next attempt
   * (idempotency key `upgrade:<uid>:<plan>:<periodStart>:<attempt>`; unique in the table).
   */
  private async reserveUpgrade(
    user: UserWithSub,
    target: PlanName,
    a: { attemptKey: string; amount: number; currency: string; paymentMethodId: string; now: Date },
  ): Promise<{ payment: Payment; owner: boolean; superseded: string[] }> {
    return this.deps.db.$transaction(async (tx) => {
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
          provider: this.deps.provider.name,
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
  private async driveUpgrade(payment: Payment, user: UserWithSub): Promise<Payment> {
    const { db, provider } = this.deps;
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
          ...(user.plan === "free" ? { currency: payment.currency } : {}),
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
        this.deps.logger.error({ err, paymentId: payment.id }, "card provider unreachable");
        throw new AppError("PAYMENT_PROVIDER_ERROR", "The payment service could not be reached. Please try again.");
      }
      result = { status: "failed", intentId: null, code: err.code, message: err.message, declineCode: err.declineCode };
    }

    if (result.status === "succeeded") {
      await this.applySuccess(payment.id, result.intentId || null, null);
    } else if (result.status === "requires_action") {
      await db.payment.updateMany({
        where: { id: payment.id, status: "created" },
        data: { status: "requires_action", intentId: result.intentId, clientSecret: result.clientSecret },
      });
      this.deps.onPayment?.("upgrade", "requires_action");
    } else {
      await this.applyFailure(payment.id, result.declineCode ?? result.code, result.message, null, result.intentId);
    }
    return db.payment.findUniqueOrThrow({ where: { id: payment.id } });
  }

  /** A concurrent identical request: wait for the owner's outcome instead of charging again. */
  private async awaitPayment(payment: Payment, user: UserWithSub): Promise<Payment> {
    const deadline = Date.now() + this.waitMs;
    let p: Payment | null = payment;
    while (p && p.status === "created") {
      if (Date.now() >= deadline) {
        if (Date.now() - p.updatedAt.getTime() > STALE_MS) return this.driveUpgrade(p, user);
        throw new AppError("PAYMENT_IN_PROGRESS", "This plan change is still being processed. Please wait a moment.");
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
      p = await this.deps.db.payment.findUnique({ where: { id: payment.id } });
    }
    return p ?? payment;
  }

  private async upgradeAnswer(payment: Payment, uid: string): Promise<ChangeSubscriptionResponse> {
    const user = await this.deps.db.user.findUniqueOrThrow({ where: { id: uid } });
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

  // ---------------------------------------------------------------- payment outcomes

  /**
   * Writes a successful payment's effect once: an upgrade switches the plan (only if the user is
   * still on the plan and period it was priced for; otherwise the payment is refunded), a renewal
   * extends the paid time. `event` records a provider event in the same transaction.
   */
  async applySuccess(
    paymentId: string,
    intentId: string | null,
    event: { id: string; type: string } | null,
  ): Promise<"applied" | "duplicate" | "already" | "refund"> {
    const { db } = this.deps;
    const now = this.deps.now();
    const before = await db.payment.findUnique({ where: { id: paymentId } });
    if (!before) return "already";
    await ensureCurrentPeriod(db, before.userId, now);
    const outcome = await db.$transaction(async (tx) => {
      if (event && !(await recordEvent(tx, this.deps.provider.name, event))) return "duplicate" as const;
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
      this.deps.onPayment?.(before.kind, "succeeded");
      const money = { uid: before.userId, plan: before.plan, amountMinor: before.amount, currency: before.currency };
      await this.notify(
        before.kind === "upgrade"
          ? { kind: "planUpgraded", ...money, renewsOn: before.periodEnd }
          : { kind: "planRenewed", ...money, nextRenewal: before.periodEnd },
      );
    }
    if (outcome === "refund") {
      const p = await db.payment.findUniqueOrThrow({ where: { id: paymentId } });
      this.deps.logger.warn({ paymentId, intentId: p.intentId }, "paid upgrade no longer applies; refunding");
      if (p.intentId && p.amount > 0) await this.deps.provider.refund(p.intentId, `refund:${p.id}`);
      await db.payment.update({ where: { id: p.id }, data: { status: "refunded" } });
      this.deps.onPayment?.(p.kind, "refunded");
    }
    return outcome;
  }

  /** Records a failed payment; a failed renewal moves the user to free and keeps the reason. */
  async applyFailure(
    paymentId: string,
    code: string,
    message: string,
    event: { id: string; type: string } | null,
    intentId: string | null = null,
  ): Promise<"applied" | "duplicate" | "already"> {
    const now = this.deps.now();
    const outcome = await this.deps.db.$transaction(async (tx) => {
      if (event && !(await recordEvent(tx, this.deps.provider.name, event))) return "duplicate" as const;
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
          where: { id: p.userId, plan: { not: "free" } },
          data: { plan: "free", pendingPlan: null, pendingPlanAt: null },
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
      const p = await this.deps.db.payment.findUnique({ where: { id: paymentId } });
      if (p) this.deps.onPayment?.(p.kind, "failed");
      if (p?.kind === "renewal") await this.notify({ kind: "renewalFailed", uid: p.userId, plan: p.plan });
    }
    return outcome;
  }

  /** A provider event (verified webhook, local confirmation, reconciliation): applied at most once. */
  async handleEvent(event: PaymentEvent): Promise<{ result: string }> {
    const { db } = this.deps;
    const payment =
      (event.paymentId && isUuid(event.paymentId)
        ? await db.payment.findUnique({ where: { id: event.paymentId } })
        : null) ?? (event.intentId ? await db.payment.findUnique({ where: { intentId: event.intentId } }) : null);
    const record = { id: event.id, type: event.providerType };
    if (!payment || event.type === "other") {
      const fresh = await db.$transaction((tx) => recordEvent(tx, this.deps.provider.name, record));
      return { result: fresh ? "ignored" : "duplicate" };
    }
    if (event.type === "payment.succeeded") {
      return { result: await this.applySuccess(payment.id, event.intentId, record) };
    }
    if (event.type === "payment.failed") {
      const f = event.failure ?? { code: "payment_failed", message: "The payment failed." };
      return { result: await this.applyFailure(payment.id, f.code, f.message, record, event.intentId) };
    }
    // payment.canceled
    const result = await db.$transaction(async (tx) => {
      if (!(await recordEvent(tx, this.deps.provider.name, record))) return "duplicate";
      const { count } = await tx.payment.updateMany({
        where: { id: payment.id, status: { in: ["created", "requires_action"] } },
        data: { status: "canceled", failureCode: "canceled" },
      });
      return count ? "applied" : "already";
    });
    return { result };
  }

  async handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ result: string }> {
    let event: PaymentEvent;
    try {
      event = this.deps.provider.parseWebhook(rawBody, signature);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, "webhook refused");
      throw new AppError("WEBHOOK_SIGNATURE_INVALID", "The webhook signature is not valid.");
    }
    const out = await this.handleEvent(event);
    this.deps.logger.info({ eventId: event.id, type: event.providerType, ...out }, "webhook event");
    return out;
  }

  /** Payments waiting for 3-D Secure whose webhook may have been missed: ask the provider. */
  private async reconcilePending(uid: string): Promise<void> {
    const open = await this.deps.db.payment.findMany({
      where: { userId: uid, status: "requires_action", intentId: { not: null } },
      take: 3,
    });
    for (const p of open) {
      try {
        const r = await this.deps.provider.retrieve(p.intentId!);
        if (r?.status === "succeeded") {
          await this.handleEvent({
            id: `sync_${p.intentId}_succeeded`,
            type: "payment.succeeded",
            providerType: "sync.succeeded",
            intentId: p.intentId,
            paymentId: p.id,
          });
        } else if (r?.status === "failed") {
          await this.handleEvent({
            id: `sync_${p.intentId}_failed`,
            type: "payment.failed",
            providerType: "sync.failed",
            intentId: p.intentId,
            paymentId: p.id,
            failure: { code: r.code, message: r.message },
          });
        }
      } catch (err) {
        this.deps.logger.warn({ err, paymentId: p.id }, "could not reconcile a pending payment");
      }
    }
  }

  // ---------------------------------------------------------------- local provider

  createLocalPaymentMethod(card: { number: string; expMonth: number; expYear: number; cvc: string }): CardDetails {
    this.requireLocal();
    return createLocalPaymentMethod(card, this.deps.now());
  }

  /** The local 3-D Secure step: delivers the same event a Stripe webhook would. */
  async localConfirm(
    uid: string,
    body: { clientSecret: string; action?: "complete" | "fail" },
  ): Promise<{ status: "succeeded"; plan: PlanName; nextBillingDate: string }> {
    this.requireLocal();
    const p = await this.deps.db.payment.findUnique({ where: { clientSecret: body.clientSecret } });
    if (!p || p.userId !== uid) throw new AppError("PAYMENT_NOT_FOUND", "No payment is waiting for this confirmation.");
    if (p.status === "requires_action") {
      const fail = body.action === "fail";
      await this.handleEvent({
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
    const after = await this.deps.db.payment.findUniqueOrThrow({ where: { id: p.id } });
    if (after.status === "succeeded" && after.appliedAt) {
      const user = await this.deps.db.user.findUniqueOrThrow({ where: { id: uid } });
      return { status: "succeeded", plan: user.plan, nextBillingDate: user.resetDate.toISOString() };
    }
    if (after.status === "failed") {
      throw paymentError(after.failureCode ?? "authentication_failed", after.failureMessage ?? "The payment failed.");
    }
    throw new AppError("PAYMENT_FAILED", "This payment is no longer pending.");
  }

  private requireLocal(): void {
    if (this.deps.provider.name !== "local") {
      throw new AppError("NOT_FOUND", "The local card provider is not enabled (PAYMENT_PROVIDER=local).");
    }
  }

  // ---------------------------------------------------------------- renewals

  /**
   * Charges every paid plan whose paid time has ended, for the period that contains `now`, with the
   * idempotency key `renewal:<uid>:<periodStart>`. Success extends the paid time to the reset
   * date; a failure moves the user to free and records why. Running twice changes nothing.
   */
  async renewDue(now: Date, opts: { batchSize?: number } = {}): Promise<RenewResult> {
    const batchSize = opts.batchSize ?? 200;
    const result: RenewResult = { due: 0, renewed: 0, failed: 0, deferred: 0 };
    let after: string | undefined;
    for (;;) {
      const users = await this.deps.db.user.findMany({
        where: {
          plan: { in: ["standard", "premium"] },
          subscription: { paidUntil: { lte: now } },
          ...(after ? { id: { gt: after } } : {}),
        },
        include: { subscription: true },
        orderBy: { id: "asc" },
        take: batchSize,
      });
      for (const u of users) {
        const r = await this.renewOne(u, now);
        if (r === "none") continue;
        result.due++;
        result[r]++;
      }
      if (users.length < batchSize) break;
      after = users[users.length - 1].id;
    }
    return result;
  }

  private async renewOne(u: UserWithSub, now: Date): Promise<"renewed" | "failed" | "deferred" | "none"> {
    const { db, provider, logger } = this.deps;
    const sub = u.subscription!;
    const eff = effectiveUsage(u, now);
    if (eff.plan === "free" || (sub.paidUntil && sub.paidUntil >= eff.resetDate)) return "none";
    const currency = this.deps.pricing.prices[sub.currency] ? sub.currency : this.deps.pricing.defaultCurrency;
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
            amount: priceOf(this.deps.pricing, eff.plan, currency),
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
      await this.applySuccess(payment.id, null, null);
      return "renewed";
    }
    if (payment.status !== "created") {
      await this.applyFailure(payment.id, payment.failureCode ?? "payment_failed", payment.failureMessage ?? "", null);
      return "failed";
    }
    if (!sub.paymentMethodId || !sub.customerId) {
      await this.applyFailure(payment.id, "no_payment_method", "No card is saved for the renewal.", null);
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
      await this.applySuccess(payment.id, r.intentId || null, null);
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
    await this.applyFailure(
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
  async expireAbandoned(now: Date): Promise<number> {
    const stale = await this.deps.db.payment.findMany({
      where: { kind: "upgrade", status: { in: ["requires_action", "created"] }, periodEnd: { lte: now } },
      take: 500,
    });
    let n = 0;
    for (const p of stale) {
      const { count } = await this.deps.db.payment.updateMany({
        where: { id: p.id, status: p.status },
        data: {
          status: "canceled",
          failureCode: "expired",
          failureMessage: "The period this payment was for has ended.",
        },
      });
      if (count && p.intentId) await this.deps.provider.cancel(p.intentId).catch(() => {});
      n += count;
    }
    return n;
  }
}

function pendingOf(user: { pendingPlan: PlanName | null; pendingPlanAt: Date | null }) {
  return user.pendingPlan && user.pendingPlanAt
    ? { plan: user.pendingPlan, date: user.pendingPlanAt.toISOString() }
    : null;
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

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Inserts the event id; false when it was already processed. */
async function recordEvent(tx: Tx, provider: string, event: { id: string; type: string }): Promise<boolean> {
  const n = await tx.$executeRaw`INSERT INTO "processed_webhook_events" ("id", "provider", "type")
    VALUES (${event.id.slice(0, 255)}, ${provider}, ${event.type.slice(0, 100)}) ON CONFLICT ("id") DO NOTHING`;
  return n === 1;
}
