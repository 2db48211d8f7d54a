import type { PlanName } from "@kikitori/shared";
import { useEffect, useId, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { brandLabel } from "./card.ts";
import { formatDate } from "./format.ts";
import type { PlanQuote } from "./parse.ts";
import { formatPrice } from "./pricing.ts";

/** What the confirmation step shows: the server's quote and the card that would be charged. */
export interface PlanReview {
  quote: PlanQuote;
  /** Null: the card on file. */
  paymentMethodId: string | null;
  card: { brand: string; last4: string } | null;
}

/**
 * The step between choosing a paid plan and paying: the amount charged today, what follows each month
 * and the card, with "Pay" (the charge must match this amount, or nothing is charged), "Use another
 * card" and "Back". Focus moves to it so a keyboard or screen-reader user hears the amount first.
 */
export function PlanConfirm({
  review,
  processing,
  onPay,
  onOtherCard,
  onBack,
}: {
  review: PlanReview;
  processing: boolean;
  onPay: () => void;
  onOtherCard: () => void;
  onBack: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const titleId = useId();
  const ref = useRef<HTMLElement>(null);
  const { quote, card } = review;
  const planName = (p: PlanName) => t(`plan.names.${p}`);
  const amount = formatPrice(quote.amountNow, quote.currency, lang);

  useEffect(() => {
    ref.current?.focus();
  }, []);

  return (
    <section
      ref={ref}
      className="plan-confirm"
      aria-labelledby={titleId}
      tabIndex={-1}
      data-testid="plan-confirm"
      data-amount={quote.amountNow}
    >
      <h3 id={titleId} className="plan-form-title">
        {t("plan.confirm.title", { plan: planName(quote.plan) })}
      </h3>
      <dl className="plan-confirm-facts">
        <div>
          <dt>{t("plan.confirm.changeLabel")}</dt>
          <dd>{t("plan.confirm.change", { from: planName(quote.fromPlan), to: planName(quote.plan) })}</dd>
        </div>
        <div>
          <dt>{t("plan.confirm.todayLabel")}</dt>
          <dd data-testid="plan-confirm-amount">
            <strong>{amount}</strong>{" "}
            <span className="muted">{t("plan.confirm.today", { date: formatDate(quote.nextBillingDate, lang) })}</span>
          </dd>
        </div>
        <div>
          <dt>{t("plan.confirm.thenLabel")}</dt>
          <dd data-testid="plan-confirm-then">
            {t("plan.confirm.then", {
              amount: formatPrice(quote.monthlyPrice, quote.currency, lang),
              date: formatDate(quote.nextBillingDate, lang),
            })}
          </dd>
        </div>
        <div>
          <dt>{t("plan.confirm.cardLabel")}</dt>
          <dd data-testid="plan-confirm-card">
            {card
              ? t("plan.confirm.card", { brand: brandLabel(card.brand), last4: card.last4 })
              : t("plan.card.genericBrand")}
          </dd>
        </div>
      </dl>
      <div className="plan-confirm-actions">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="plan-confirm-pay"
          disabled={processing}
          aria-busy={processing}
          onClick={onPay}
        >
          {processing ? <span className="spinner spinner-light" aria-hidden="true" /> : null}
          {t("plan.confirm.pay", { amount })}
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          data-testid="plan-confirm-other-card"
          disabled={processing}
          onClick={onOtherCard}
        >
          {t("plan.confirm.otherCard")}
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          data-testid="plan-confirm-back"
          disabled={processing}
          onClick={onBack}
        >
          {t("plan.confirm.back")}
        </button>
      </div>
    </section>
  );
}
