// The billing domain behind one object (docs/decisions/0006-billing.md explains the rules), one file
// per concern:
//   plan-change.ts  plans, the current subscription and plan changes (downgrades scheduled)
//   upgrade.ts      the prorated upgrade payment, its concurrency and 3-D Secure
//   outcomes.ts     writing a payment's success or failure once
//   events.ts       provider events: webhooks, the local provider's confirmation, reconciliation
//   renewals.ts     monthly renewals and abandoned payments (run by sweep.ts)
//   cards.ts        replacing the card on file
//   receipts.ts     PDF receipts of paid payments
//   context.ts      the dependencies and the reads they all share
import type {
  ChangeSubscriptionBody,
  ChangeSubscriptionResponse,
  CurrentSubscription,
  PlanName,
  PlanQuote,
  PlansResponse,
} from "@kikitori/shared";
import { replaceCard } from "./cards.ts";
import { type BillingDeps, notify } from "./context.ts";
import { createLocalPaymentMethod, handleEvent, handleWebhook, localConfirm } from "./events.ts";
import type { PlanEvent } from "./notify.ts";
import { applyFailure, applySuccess, type ProviderEventRecord } from "./outcomes.ts";
import { change, current, plans, quote } from "./plan-change.ts";
import type { CardDetails, PaymentEvent } from "./providers/port.ts";
import { receiptPdf } from "./receipts.ts";
import { expireAbandoned, type RenewResult, renewDue } from "./renewals.ts";

export type { BillingDeps } from "./context.ts";
export { paymentError } from "./outcomes.ts";
export type { RenewResult } from "./renewals.ts";

export class BillingService {
  constructor(private readonly deps: BillingDeps) {}

  /** Sends a plan-change e-mail; never throws (see notify.ts). */
  notify(event: PlanEvent): Promise<void> {
    return notify(this.deps, event);
  }

  plans(lang: string | undefined, uid: string | null): Promise<PlansResponse> {
    return plans(this.deps, lang, uid);
  }

  current(uid: string, lang?: string): Promise<CurrentSubscription> {
    return current(this.deps, uid, lang);
  }

  change(uid: string, body: ChangeSubscriptionBody): Promise<ChangeSubscriptionResponse> {
    return change(this.deps, uid, body);
  }

  quote(uid: string, plan: PlanName, lang?: string): Promise<PlanQuote> {
    return quote(this.deps, uid, plan, lang);
  }

  replaceCard(uid: string, paymentMethodId: string): Promise<{ paymentMethod: { brand: string; last4: string } }> {
    return replaceCard(this.deps, uid, paymentMethodId);
  }

  receiptPdf(uid: string, paymentId: string): Promise<{ bytes: Uint8Array; fileName: string }> {
    const seller = this.deps.seller ?? { name: "Kikitori", address: [], email: "", taxRate: 0, taxName: "Tax" };
    return receiptPdf(this.deps, uid, paymentId, seller);
  }

  applySuccess(
    paymentId: string,
    intentId: string | null,
    event: ProviderEventRecord | null,
  ): Promise<"applied" | "duplicate" | "already" | "refund"> {
    return applySuccess(this.deps, paymentId, intentId, event);
  }

  applyFailure(
    paymentId: string,
    code: string,
    message: string,
    event: ProviderEventRecord | null,
    intentId: string | null = null,
  ): Promise<"applied" | "duplicate" | "already"> {
    return applyFailure(this.deps, paymentId, code, message, event, intentId);
  }

  handleEvent(event: PaymentEvent): Promise<{ result: string }> {
    return handleEvent(this.deps, event);
  }

  handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ result: string }> {
    return handleWebhook(this.deps, rawBody, signature);
  }

  createLocalPaymentMethod(card: { number: string; expMonth: number; expYear: number; cvc: string }): CardDetails {
    return createLocalPaymentMethod(this.deps, card);
  }

  localConfirm(
    uid: string,
    body: { clientSecret: string; action?: "complete" | "fail" },
  ): Promise<{ status: "succeeded"; plan: PlanName; nextBillingDate: string }> {
    return localConfirm(this.deps, uid, body);
  }

  renewDue(now: Date, opts: { batchSize?: number } = {}): Promise<RenewResult> {
    return renewDue(this.deps, now, opts);
  }

  expireAbandoned(now: Date): Promise<number> {
    return expireAbandoned(this.deps, now);
  }
}
