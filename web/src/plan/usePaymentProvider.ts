import { type RefObject, useCallback, useState } from "react";
import { isApiError } from "../api/errors.ts";
import { confirmLocalPayment } from "./api.ts";
import type { ConfirmOutcome, PaymentProvider } from "./flow.ts";
import type { CardFieldHandle } from "./LocalCardForm.tsx";
import { noticeFromError } from "./notice.ts";
import { parseConfirmResult, type SubscriptionState } from "./parse.ts";
import { confirmStripePayment } from "./StripeCardForm.tsx";

/**
 * The card provider of this server for the plan flow (flow.ts): Stripe.js for "stripe", otherwise the
 * local card form and its stand-in bank step, whose open question `authRequest` is while the dialog
 * (AuthModal) is up.
 */
export function usePaymentProvider(sub: SubscriptionState | undefined, cardRef: RefObject<CardFieldHandle | null>) {
  const [authRequest, setAuthRequest] = useState<{ resolve: (approve: boolean) => void } | null>(null);

  const confirmLocally = useCallback(async (clientSecret: string): Promise<ConfirmOutcome> => {
    const approve = await new Promise<boolean>((resolve) => setAuthRequest({ resolve }));
    setAuthRequest(null);
    let raw: unknown;
    try {
      raw = await confirmLocalPayment(clientSecret, approve);
    } catch (e) {
      // The user pressed Decline: say so, that nothing was charged, and what to do next.
      if (!approve && isApiError(e) && e.status === 402) return { error: { key: "plan.auth.declined" } };
      return { error: noticeFromError(e, "payment.confirmationError") };
    }
    // A declined or failed confirmation is an error answer (caught above); this one succeeded.
    const r = parseConfirmResult(raw);
    return r ? { status: r.status } : { error: { key: "payment.confirmationError" } };
  }, []);

  const makeProvider = (): PaymentProvider | null => {
    if (!sub) return null;
    const stripeKey = sub.provider === "stripe" ? sub.publishableKey : null;
    if (sub.provider === "stripe" && !stripeKey) return null;
    return {
      createPaymentMethod: async () =>
        cardRef.current
          ? cardRef.current.createPaymentMethod()
          : { error: { key: stripeKey ? "payment.elementsNotLoaded" : "payment.cardInfoMissing" } },
      confirmPayment: (secret) => (stripeKey ? confirmStripePayment(stripeKey, secret) : confirmLocally(secret)),
    };
  };

  return { makeProvider, authRequest };
}
