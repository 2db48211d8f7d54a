import { useEffect, useId, useRef } from "react";
import { useTranslation } from "react-i18next";
import { trapTab } from "../components/focusTrap.ts";

/**
 * The local provider's stand-in for the card issuer's 3-D Secure page. A modal <dialog> that names
 * the plan and the amount to confirm; focus stays inside (Tab wraps), Escape counts as declining.
 */
export function AuthModal({
  planLabel,
  amountText,
  onAnswer,
}: {
  planLabel: string;
  /** The formatted amount the bank is asked to confirm, when known. */
  amountText?: string | null;
  onAnswer: (approve: boolean) => void;
}) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();
  const answered = useRef(false);

  const answer = (approve: boolean) => {
    if (answered.current) return;
    answered.current = true;
    onAnswer(approve);
  };

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) {
      if (typeof dialog.showModal === "function") dialog.showModal();
      else dialog.setAttribute("open", "");
    }
    return () => dialog?.close();
  }, []);

  return (
    <dialog
      ref={ref}
      className="auth-modal"
      data-testid="auth-modal"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onKeyDown={(e) => {
        if (ref.current) trapTab(ref.current, e);
      }}
      onCancel={(e) => {
        e.preventDefault();
        answer(false);
      }}
    >
      <div className="auth-modal-bank" aria-hidden="true">
        <span className="auth-modal-lock" />
        {t("plan.auth.bank")}
      </div>
      <h2 id={titleId}>{t("plan.auth.title")}</h2>
      <div id={bodyId}>
        <p>{t("plan.auth.body", { plan: planLabel })}</p>
        {amountText ? (
          <p className="auth-modal-amount" data-testid="auth-amount">
            {t("plan.auth.amount", { amount: amountText })}
          </p>
        ) : null}
      </div>
      <p className="hint">{t("plan.auth.simulated")}</p>
      <div className="auth-modal-actions">
        <button type="button" className="btn btn-secondary" data-testid="auth-decline" onClick={() => answer(false)}>
          {t("plan.auth.decline")}
        </button>
        <button type="button" className="btn btn-primary" data-testid="auth-approve" onClick={() => answer(true)}>
          {t("plan.auth.approve")}
        </button>
      </div>
    </dialog>
  );
}
