/** The billing calls of the plan screen and their react-query hooks. */
import type { PlanName } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { apiFetch, apiFetchParsed } from "../api/client.ts";
import { fetchWithSession, readError } from "../transcription/api.ts";
import {
  type PlanQuote,
  type PlansInfo,
  parseCardReplaced,
  parseCurrent,
  parsePlans,
  parseQuote,
  type SubscriptionState,
} from "./parse.ts";

/** Everything billing-related of one user; invalidate this prefix after a plan change. */
export const subscriptionKeyPrefix = (uid: string) => ["subscription", uid] as const;
export const currentSubscriptionKey = (uid: string, lang: string) => ["subscription", uid, "current", lang] as const;
export const plansKey = (uid: string, lang: string) => ["subscription", uid, "plans", lang] as const;

export function fetchPlans(lang: string, signal?: AbortSignal): Promise<PlansInfo> {
  return apiFetchParsed(
    `/api/subscriptions/plans?lang=${encodeURIComponent(lang)}`,
    parsePlans,
    "Unexpected plans answer",
    {
      signal,
    },
  );
}

export function fetchCurrentSubscription(lang: string, signal?: AbortSignal): Promise<SubscriptionState> {
  return apiFetchParsed(
    `/api/subscriptions/current?lang=${encodeURIComponent(lang)}`,
    parseCurrent,
    "Unexpected subscription answer",
    { signal },
  );
}

/** What choosing `plan` would charge now and with which card; nothing is charged by asking. */
export function fetchQuote(plan: PlanName, lang: string): Promise<PlanQuote> {
  return apiFetchParsed(
    `/api/subscriptions/quote?plan=${encodeURIComponent(plan)}&lang=${encodeURIComponent(lang)}`,
    parseQuote,
    "Unexpected quote answer",
  );
}

/** Replaces the card on file (a payment method the card form created); nothing is charged. */
export function replaceCard(paymentMethodId: string): Promise<{ paymentMethod: { brand: string; last4: string } }> {
  return apiFetchParsed("/api/subscriptions/payment-method", parseCardReplaced, "Unexpected card answer", {
    method: "POST",
    body: { paymentMethodId },
  });
}

/** GET /api/billing/receipts/{id} → the PDF receipt of a paid payment and its file name. */
export async function fetchReceipt(paymentId: string): Promise<{ blob: Blob; fileName: string }> {
  const res = await fetchWithSession(`/api/billing/receipts/${encodeURIComponent(paymentId)}`);
  if (!res.ok) throw await readError(res);
  const name = /filename="([^"]+)"/i.exec(res.headers.get("content-disposition") ?? "")?.[1];
  return { blob: await res.blob(), fileName: name ?? `receipt-${paymentId.slice(0, 8)}.pdf` };
}

/**
 * `lang` picks the currency of a first paid plan, as in the plans call. `confirmedAmount`: the amount
 * the user confirmed; the server charges nothing if the charge would now differ (PRICE_CHANGED).
 */
export function createOrUpdateSubscription(body: {
  paymentMethodId: string | null;
  selectedPlan: PlanName;
  lang: string;
  confirmedAmount?: number;
}): Promise<unknown> {
  return apiFetch<unknown>("/api/subscriptions/create-or-update-subscription", { method: "POST", body });
}

/** The local (offline) provider: turns card details into a payment method id. */
export function createLocalPaymentMethod(body: {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}): Promise<unknown> {
  return apiFetch<unknown>("/api/billing/local/payment-methods", { method: "POST", body });
}

/**
 * The local provider's stand-in for the issuer's 3-D Secure page: approve or decline the payment.
 * Declining sends `action: "fail"` (the billing service's field) and `approve: false` (the first draft's).
 */
export function confirmLocalPayment(clientSecret: string, approve: boolean): Promise<unknown> {
  return apiFetch<unknown>("/api/billing/local/confirm", {
    method: "POST",
    body: approve ? { clientSecret } : { clientSecret, action: "fail", approve: false },
  });
}

export function usePlans(uid: string, lang: string) {
  return useQuery({
    queryKey: plansKey(uid, lang),
    queryFn: ({ signal }) => fetchPlans(lang, signal),
    staleTime: 5 * 60_000,
  });
}

export function useCurrentSubscription(uid: string, lang: string) {
  return useQuery({
    queryKey: currentSubscriptionKey(uid, lang),
    queryFn: ({ signal }) => fetchCurrentSubscription(lang, signal),
  });
}
