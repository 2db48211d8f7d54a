import { type Ref, useId, useImperativeHandle, useState } from "react";
import { useTranslation } from "react-i18next";
import { createLocalPaymentMethod } from "./api.ts";
import {
  brandLabel,
  type CardInput,
  type CardProblems,
  cardProblemKey,
  checkCard,
  cvcLength,
  detectBrand,
  digitsOnly,
  formatCardNumber,
  formatExpiry,
  isCardEmpty,
  paymentMethodBody,
} from "./card.ts";
import type { PaymentMethodOutcome } from "./flow.ts";
import { noticeFromError } from "./notice.ts";
import { parsePaymentMethod } from "./parse.ts";

export interface CardFieldHandle {
  createPaymentMethod(): Promise<PaymentMethodOutcome>;
}

/** The local provider's test cards (number, outcome key under plan.card.testCards). */
export const TEST_CARDS = [
  ["4242 4242 4242 4242", "success"],
  ["4000 0000 0000 0002", "declined"],
  ["4000 0025 0000 3155", "authentication"],
] as const;

const EMPTY: CardInput = { number: "", expiry: "", cvc: "" };

/**
 * The card checked here (its problems shown through `setProblems`), then made a payment method by
 * the local provider.
 */
async function cardPaymentMethod(
  card: CardInput,
  setProblems: (problems: CardProblems) => void,
): Promise<PaymentMethodOutcome> {
  if (isCardEmpty(card)) {
    setProblems({ number: "empty" });
    return { error: { key: "payment.cardInfoMissing" } };
  }
  const found = checkCard(card);
  setProblems(found);
  const key = cardProblemKey(found);
  if (key) return { error: { key } };
  try {
    const pm = parsePaymentMethod(await createLocalPaymentMethod(paymentMethodBody(card)));
    return pm ? { id: pm.id, brand: pm.brand, last4: pm.last4 } : { error: { key: "payment.paymentMethodFailed" } };
  } catch (e) {
    return { error: noticeFromError(e, "payment.paymentMethodFailed") };
  }
}

/** The test cards the local provider knows, and what each does. */
function TestCardsHint() {
  const { t } = useTranslation();
  return (
    <div className="card-hint" data-testid="card-hint">
      <p className="hint">{t("plan.card.testIntro")}</p>
      <ul>
        {TEST_CARDS.map(([number, outcome]) => (
          <li key={number}>
            <code dir="ltr">{number}</code> <span>{t(`plan.card.testCards.${outcome}`)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Card number, MM/YY and CVC for the local (offline) payment provider, with the test-card hint. */
export function LocalCardForm({
  ref,
  disabled,
  onEdit,
}: {
  ref?: Ref<CardFieldHandle>;
  disabled: boolean;
  /** Called when the user types, so the screen can clear a message about the previous attempt. */
  onEdit?: () => void;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [card, setCard] = useState<CardInput>(EMPTY);
  const [problems, setProblems] = useState<CardProblems>({});

  useImperativeHandle(ref, () => ({ createPaymentMethod: () => cardPaymentMethod(card, setProblems) }), [card]);

  const update = (field: keyof CardInput, value: string) => {
    setCard((c) => ({ ...c, [field]: value }));
    onEdit?.();
    if (problems[field]) setProblems((p) => ({ ...p, [field]: undefined }));
  };

  const brand = detectBrand(digitsOnly(card.number));
  const fieldError = (field: keyof CardProblems) => {
    const problem = problems[field];
    if (!problem) return null;
    const key = cardProblemKey({ [field]: problem });
    return key ? (
      <p className="field-error" id={`${id}-${field}-error`}>
        {t(key)}
      </p>
    ) : null;
  };
  const describedBy = (field: keyof CardProblems) => (problems[field] ? `${id}-${field}-error` : undefined);

  return (
    <div className="card-form">
      <div className="field">
        <label htmlFor={`${id}-number`}>{t("plan.card.number")}</label>
        <div className="card-number-wrap">
          <input
            id={`${id}-number`}
            data-testid="card-number"
            type="text"
            inputMode="numeric"
            autoComplete="cc-number"
            placeholder={t("plan.card.numberPlaceholder")}
            value={card.number}
            disabled={disabled}
            aria-invalid={!!problems.number}
            aria-describedby={describedBy("number")}
            onChange={(e) => update("number", formatCardNumber(e.target.value))}
            dir="ltr"
          />
          {brand !== "unknown" ? (
            <span className="card-brand" data-testid="card-brand">
              {brandLabel(brand)}
            </span>
          ) : null}
        </div>
        {fieldError("number")}
      </div>
      <div className="card-row">
        <div className="field">
          <label htmlFor={`${id}-expiry`}>{t("plan.card.expiry")}</label>
          <input
            id={`${id}-expiry`}
            data-testid="card-expiry"
            type="text"
            inputMode="numeric"
            autoComplete="cc-exp"
            placeholder={t("plan.card.expiryPlaceholder")}
            maxLength={5}
            value={card.expiry}
            disabled={disabled}
            aria-invalid={!!problems.expiry}
            aria-describedby={describedBy("expiry")}
            onChange={(e) => update("expiry", formatExpiry(e.target.value))}
            dir="ltr"
          />
          {fieldError("expiry")}
        </div>
        <div className="field">
          <label htmlFor={`${id}-cvc`}>{t("plan.card.cvc")}</label>
          <input
            id={`${id}-cvc`}
            data-testid="card-cvc"
            type="text"
            inputMode="numeric"
            autoComplete="cc-csc"
            placeholder={t("plan.card.cvcPlaceholder")}
            maxLength={cvcLength(brand)}
            value={card.cvc}
            disabled={disabled}
            aria-invalid={!!problems.cvc}
            aria-describedby={describedBy("cvc")}
            onChange={(e) => update("cvc", digitsOnly(e.target.value).slice(0, cvcLength(brand)))}
            dir="ltr"
          />
          {fieldError("cvc")}
        </div>
      </div>
      <TestCardsHint />
    </div>
  );
}
