/**
 * Applying a selected plan (docs/decisions/0006-billing.md). The card provider and the API are
 * passed in, so the whole decision tree is pure and unit-tested.
 *
 * 1. No user → "not logged in". Same plan → nothing to do.
 * 2. Paid plan → the provider turns the card field into a payment method (free, or the card on file:
 *    paymentMethodId null).
 * 3. create-or-update-subscription; an error answer is shown by its code.
 * 4. A clientSecret → the provider confirms the card payment: succeeded → success,
 *    requires_action → additional authentication needed, failure statuses → payment failed.
 * 5. Otherwise the answer is a success: its status picks a translated text (upgraded, scheduled,
 *    pending_cancelled); a message alone is shown as it is; a nextBillingDate alone is the standard success.
 */
import type { PlanName } from "@kikitori/shared";
import { type Notice, noticeFromError, noticeFromErrorBody } from "./notice.ts";
import { parseSubscriptionResult, type SubscriptionResult } from "./parse.ts";
import { isPaidPlan } from "./pricing.ts";

/** A created payment method; brand and last 4 digits when the provider tells them (shown before paying). */
export type PaymentMethodOutcome = { id: string; brand?: string; last4?: string } | { error: Notice };
export type ConfirmOutcome = { status: string } | { error: Notice };

export interface PaymentProvider {
  /** Reads the card field and creates a payment method with the provider. */
  createPaymentMethod(): Promise<PaymentMethodOutcome>;
  /** Confirms the card payment of a client secret (Stripe's confirmCardPayment, or the local bank step). */
  confirmPayment(clientSecret: string): Promise<ConfirmOutcome>;
}

export interface PlanChangeInput {
  loggedIn: boolean;
  currentPlan: PlanName;
  selectedPlan: PlanName;
  /** Pay with the card on file (paymentMethodId null: the server uses the stored card). */
  useSavedCard?: boolean;
  /** The payment method preparePayment made for the confirmation step (the card form is not read again). */
  prepared?: { paymentMethodId: string | null };
  /** The amount the user confirmed; the server charges nothing if the charge would differ. */
  confirmedAmount?: number;
}

export interface ChangeBody {
  paymentMethodId: string | null;
  selectedPlan: PlanName;
  confirmedAmount?: number;
}

export type PreparedPayment =
  | { paymentMethodId: string | null; card: { brand: string; last4: string } | null }
  | { error: Notice };

/**
 * Before the confirmation step: the card that would be charged. The card on file (null id: the server
 * uses it), or the new card turned into a payment method now, so its brand and last digits can be shown
 * next to the amount. Nothing is charged here.
 */
export async function preparePayment(
  input: { useSavedCard: boolean; savedCard: { brand: string; last4: string } | null },
  provider: PaymentProvider | null,
): Promise<PreparedPayment> {
  try {
    if (input.useSavedCard) return { paymentMethodId: null, card: input.savedCard };
    return await newPaymentMethod(provider);
  } catch (e) {
    console.error("Preparing the payment failed unexpectedly", e);
    return { error: { key: "payment.unexpectedError" } };
  }
}

/** The card form's new card as a payment method (nothing charged), or the notice saying why not. */
async function newPaymentMethod(provider: PaymentProvider | null): Promise<PreparedPayment> {
  if (!provider) return { error: { key: "payment.elementsNotLoaded" } };
  let pm: PaymentMethodOutcome;
  try {
    pm = await provider.createPaymentMethod();
  } catch (e) {
    return { error: noticeFromError(e, "payment.paymentMethodFailed") };
  }
  if ("error" in pm) return { error: pm.error };
  if (!pm.id) return { error: { key: "payment.paymentMethodFailed" } };
  return { paymentMethodId: pm.id, card: pm.brand && pm.last4 ? { brand: pm.brand, last4: pm.last4 } : null };
}

export interface PlanChangeDeps {
  /** Null while the payment form has not loaded (or could not load). */
  provider: PaymentProvider | null;
  submit(body: ChangeBody): Promise<unknown>;
}

export type PlanChangeOutcome =
  | { kind: "success"; notice: Notice; charged?: { amount: number; currency: string } }
  | { kind: "warning"; notice: Notice }
  | { kind: "error"; notice: Notice }
  | { kind: "noop" };

const FAILED_STATUSES = new Set(["requires_payment_method", "canceled", "failed"]);

export function outcomeOfStatus(status: string): PlanChangeOutcome {
  if (status === "succeeded") return { kind: "success", notice: { key: "payment.success" } };
  if (status === "requires_action") return { kind: "error", notice: { key: "payment.additionalAuth" } };
  if (FAILED_STATUSES.has(status)) return { kind: "error", notice: { key: "payment.paymentFailed" } };
  // processing, requires_confirmation, requires_capture, …: not done, not failed.
  return { kind: "warning", notice: { key: "payment.requiresAction" } };
}

/** Texts for the server's answer statuses; the server's own message is the fallback. */
const STATUS_KEYS: Record<string, string> = {
  upgraded: "payment.success",
  scheduled: "plan.result.scheduled",
  pending_cancelled: "plan.result.cancelled",
};

async function guarded(run: () => Promise<PlanChangeOutcome>): Promise<PlanChangeOutcome> {
  try {
    return await run();
  } catch (e) {
    console.error("Plan change failed unexpectedly", e);
    return { kind: "error", notice: { key: "payment.unexpectedError" } };
  }
}

export function applyPlanChange(input: PlanChangeInput, deps: PlanChangeDeps): Promise<PlanChangeOutcome> {
  return guarded(async () => {
    if (!input.loggedIn) return { kind: "error", notice: { key: "payment.notLoggedIn" } };
    if (input.selectedPlan === input.currentPlan) return { kind: "noop" };

    let paymentMethodId: string | null = input.prepared?.paymentMethodId ?? null;
    if (isPaidPlan(input.selectedPlan) && !input.useSavedCard && !input.prepared) {
      const made = await newPaymentMethod(deps.provider);
      if ("error" in made) return { kind: "error", notice: made.error };
      paymentMethodId = made.paymentMethodId;
    }
    const confirmed = input.confirmedAmount !== undefined ? { confirmedAmount: input.confirmedAmount } : {};
    return submitAndSettle({ paymentMethodId, selectedPlan: input.selectedPlan, ...confirmed }, deps);
  });
}

/**
 * "Keep my plan": choosing the current plan again withdraws a scheduled switch (the server answers
 * pending_cancelled). Separate from the plan form, whose submit stays disabled for the current plan.
 */
export function keepCurrentPlan(
  input: { loggedIn: boolean; currentPlan: PlanName },
  deps: PlanChangeDeps,
): Promise<PlanChangeOutcome> {
  return guarded(async () => {
    if (!input.loggedIn) return { kind: "error", notice: { key: "payment.notLoggedIn" } };
    return submitAndSettle({ paymentMethodId: null, selectedPlan: input.currentPlan }, deps);
  });
}

/** Completes a payment that is still waiting for the bank (the page was left during 3-D Secure). */
export function resumePayment(clientSecret: string, provider: PaymentProvider | null): Promise<PlanChangeOutcome> {
  return guarded(async () => {
    if (!clientSecret) return { kind: "error", notice: { key: "payment.clientSecretMissing" } };
    return confirm(clientSecret, provider, {});
  });
}

async function submitAndSettle(body: ChangeBody, deps: PlanChangeDeps): Promise<PlanChangeOutcome> {
  let raw: unknown;
  try {
    raw = await deps.submit(body);
  } catch (e) {
    return { kind: "error", notice: noticeFromError(e, "payment.genericError") };
  }
  const res = parseSubscriptionResult(raw);
  if (res.error) return { kind: "error", notice: noticeFromErrorBody(res.error, "payment.genericError") };
  if (res.clientSecret) return confirm(res.clientSecret, deps.provider, res);
  return settled(res);
}

async function confirm(
  clientSecret: string,
  provider: PaymentProvider | null,
  res: SubscriptionResult,
): Promise<PlanChangeOutcome> {
  if (!provider) return { kind: "error", notice: { key: "payment.elementsNotLoaded" } };
  let confirmed: ConfirmOutcome;
  try {
    confirmed = await provider.confirmPayment(clientSecret);
  } catch (e) {
    return { kind: "error", notice: noticeFromError(e, "payment.confirmationError") };
  }
  if ("error" in confirmed) return { kind: "error", notice: confirmed.error };
  const out = outcomeOfStatus(confirmed.status);
  return out.kind === "success" && res.charged ? { ...out, charged: res.charged } : out;
}

/** An answer without a client secret. */
export function settled(res: SubscriptionResult): PlanChangeOutcome {
  if (res.status === "requires_action" || res.status === "requires_confirmation") {
    return { kind: "error", notice: { key: "payment.clientSecretMissing" } };
  }
  const key = res.status ? STATUS_KEYS[res.status] : undefined;
  const charged = res.charged ? { charged: res.charged } : {};
  if (key) return { kind: "success", notice: { key, text: res.message }, ...charged };
  if (res.message) return { kind: "success", notice: { text: res.message }, ...charged };
  if (res.nextBillingDate) return { kind: "success", notice: { key: "payment.success" }, ...charged };
  return { kind: "error", notice: { key: "payment.clientSecretMissing" } };
}
