import type { Stripe, StripeCardElement } from "@stripe/stripe-js";
import { type Ref, useEffect, useImperativeHandle, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { PaymentMethodOutcome } from "./flow.ts";
import type { CardFieldHandle } from "./LocalCardForm.tsx";
import { getStripe } from "./stripe.ts";

type LoadState = "loading" | "ready" | "failed";

/** Stripe Elements' card field (only rendered when the server's provider is "stripe"). */
export function StripeCardForm({
  ref,
  publishableKey,
  disabled,
}: {
  ref?: Ref<CardFieldHandle>;
  publishableKey: string;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const mountPoint = useRef<HTMLDivElement>(null);
  const stripeRef = useRef<Stripe | null>(null);
  const cardRef = useRef<StripeCardElement | null>(null);
  const cardState = useRef({ empty: true, complete: false });
  const [load, setLoad] = useState<LoadState>("loading");
  const [fieldError, setFieldError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    let card: StripeCardElement | null = null;
    setLoad("loading");
    getStripe(publishableKey)
      .then((stripe) => {
        if (cancelled) return;
        if (!stripe || !mountPoint.current) {
          setLoad("failed");
          return;
        }
        const elements = stripe.elements({ locale: "auto" });
        card = elements.create("card", { hidePostalCode: true });
        card.on("change", (e) => {
          cardState.current = { empty: e.empty, complete: e.complete };
          setFieldError(e.error?.message ?? null);
        });
        card.mount(mountPoint.current);
        stripeRef.current = stripe;
        cardRef.current = card;
        setLoad("ready");
      })
      .catch((e: unknown) => {
        console.error("Stripe.js could not be loaded", e);
        if (!cancelled) setLoad("failed");
      });
    return () => {
      cancelled = true;
      card?.destroy();
      cardRef.current = null;
      stripeRef.current = null;
    };
  }, [publishableKey]);

  useEffect(() => {
    cardRef.current?.update({ disabled });
  }, [disabled]);

  useImperativeHandle(
    ref,
    () => ({
      async createPaymentMethod(): Promise<PaymentMethodOutcome> {
        const stripe = stripeRef.current;
        const card = cardRef.current;
        if (!stripe || !card) return { error: { key: "payment.elementsNotLoaded" } };
        if (cardState.current.empty) return { error: { key: "payment.cardInfoMissing" } };
        const result = await stripe.createPaymentMethod({ type: "card", card });
        if (result.error) {
          return {
            error: result.error.message ? { text: result.error.message } : { key: "payment.paymentMethodError" },
          };
        }
        const pm = result.paymentMethod;
        return pm?.id
          ? { id: pm.id, brand: pm.card?.brand, last4: pm.card?.last4 }
          : { error: { key: "payment.paymentMethodFailed" } };
      },
    }),
    [],
  );

  return (
    <div className="card-form">
      <div className="field">
        <div className="stripe-card" ref={mountPoint} data-testid="stripe-card" aria-busy={load === "loading"} />
        {load === "loading" ? (
          <p className="status-line hint" role="status">
            <span className="spinner" aria-hidden="true" />
            {t("plan.card.stripeLoading")}
          </p>
        ) : null}
        {load === "failed" ? (
          <p className="field-error" role="alert">
            {t("payment.elementsNotLoaded")}
          </p>
        ) : null}
        {fieldError ? <p className="field-error">{fieldError}</p> : null}
        <p className="hint">{t("plan.card.secure")}</p>
      </div>
    </div>
  );
}

/** Confirms a card payment with Stripe (3-D Secure is handled by Stripe.js's own dialog). */
export async function confirmStripePayment(
  publishableKey: string,
  clientSecret: string,
): Promise<{ status: string } | { error: { key?: string; text?: string } }> {
  let stripe: Stripe | null;
  try {
    stripe = await getStripe(publishableKey);
  } catch {
    return { error: { key: "payment.elementsNotLoaded" } };
  }
  if (!stripe) return { error: { key: "payment.elementsNotLoaded" } };
  const result = await stripe.confirmCardPayment(clientSecret);
  if (result.error) {
    if (result.error.code === "payment_intent_authentication_failure") {
      return { error: { key: "payment.additionalAuth", text: result.error.message } };
    }
    return { error: result.error.message ? { text: result.error.message } : { key: "payment.paymentFailed" } };
  }
  return { status: result.paymentIntent?.status ?? "" };
}
