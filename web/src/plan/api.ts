/** The billing calls of the plan screen and their react-query hooks. */
import type { PlanName } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { apiFetch, apiFetchParsed } from "../api/client.ts";
import { type PlansInfo, parseCurrent, parsePlans, type SubscriptionState } from "./parse.ts";

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

/** `lang` picks the currency of a first paid plan, as in the plans call. */
export function createOrUpdateSubscription(body: {
  paymentMethodId: string | null;
  selectedPlan: PlanName;
  lang: string;
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
