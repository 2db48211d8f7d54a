import type { Ref } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { brandLabel } from "./card.ts";
import { type CardFieldHandle, LocalCardForm } from "./LocalCardForm.tsx";
import type { SubscriptionState } from "./parse.ts";
import { StripeCardForm } from "./StripeCardForm.tsx";

/**
 * The card for a paid plan: the card on file or a new one, entered in the provider's form (Stripe
 * Elements, or the local card form).
 */
export function PlanCardFields({
  sub,
  newCard,
  onNewCard,
  disabled,
  cardRef,
  onEdit,
  showTerms,
}: {
  sub: SubscriptionState;
  newCard: boolean;
  onNewCard: (useNew: boolean) => void;
  disabled: boolean;
  cardRef: Ref<CardFieldHandle>;
  /** The user typed in the local card form. */
  onEdit: () => void;
  /** Show the auto-renewal terms under the card. */
  showTerms: boolean;
}) {
  const { t } = useTranslation();
  const savedCard = sub.paymentMethod;
  const useSavedCard = !!savedCard && !newCard;
  return (
    <fieldset className="card-fieldset" disabled={disabled}>
      <legend className="field-label">{t("plan.card.title")}</legend>
      {savedCard ? (
        <div className="card-choice">
          <label className="card-choice-option">
            <input
              type="radio"
              name="card-source"
              checked={!newCard}
              onChange={() => onNewCard(false)}
              data-testid="card-saved"
            />
            <span>
              {t("plan.card.useSaved", {
                brand: savedCard.brand ? brandLabel(savedCard.brand) : t("plan.card.genericBrand"),
                last4: savedCard.last4,
              })}
            </span>
          </label>
          <label className="card-choice-option">
            <input
              type="radio"
              name="card-source"
              checked={newCard}
              onChange={() => onNewCard(true)}
              data-testid="card-new"
            />
            <span>{t("plan.card.useNew")}</span>
          </label>
        </div>
      ) : null}
      {useSavedCard ? null : sub.provider === "stripe" ? (
        sub.publishableKey ? (
          <StripeCardForm ref={cardRef} publishableKey={sub.publishableKey} disabled={disabled} />
        ) : (
          <ErrorAlert message={t("payment.elementsNotLoaded")} />
        )
      ) : (
        <LocalCardForm ref={cardRef} disabled={disabled} onEdit={onEdit} />
      )}
      {showTerms ? <p className="hint">{t("plan.autoRenew.terms")}</p> : null}
    </fieldset>
  );
}
