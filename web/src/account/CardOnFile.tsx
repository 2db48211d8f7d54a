import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { refetchAfterWrite } from "../api/refetch.ts";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { errorText } from "../i18n/errorText.ts";
import { replaceCard, subscriptionKeyPrefix, useCurrentSubscription } from "../plan/api.ts";
import { brandLabel } from "../plan/card.ts";
import { type CardFieldHandle, LocalCardForm } from "../plan/LocalCardForm.tsx";
import { type Notice, noticeFromError, noticeText, type Translate } from "../plan/notice.ts";
import { StripeCardForm } from "../plan/StripeCardForm.tsx";
import { useLang } from "../routing/useLang.ts";
import { type Outcome, OutcomeBox } from "./accountForms.tsx";

/**
 * The card on file and "Change card": a new card entered in the provider's form replaces it for the
 * next upgrade and the renewals. Nothing is charged; the provider checks the card first.
 */
export function CardOnFile({ uid }: { uid: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  const queryClient = useQueryClient();
  const current = useCurrentSubscription(uid, lang);
  const cardRef = useRef<CardFieldHandle>(null);
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const tr: Translate = (key, o) => t(key, o ?? {}) as string;
  const fail = (notice: Notice, cause?: unknown) => setOutcome({ ok: false, message: noticeText(tr, notice), cause });

  const sub = current.data;
  const card = sub?.paymentMethod ?? null;

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setOutcome(null);
    try {
      const pm = cardRef.current
        ? await cardRef.current.createPaymentMethod()
        : { error: { key: "payment.elementsNotLoaded" } };
      if ("error" in pm) return fail(pm.error);
      const saved = await replaceCard(pm.id);
      setEditing(false);
      setOutcome({
        ok: true,
        message: t("account.card.changed", {
          brand: brandLabel(saved.paymentMethod.brand),
          last4: saved.paymentMethod.last4,
        }),
      });
      void refetchAfterWrite(queryClient, subscriptionKeyPrefix(uid));
    } catch (err) {
      fail(noticeFromError(err, "payment.paymentMethodFailed"), err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card account-card" aria-labelledby="account-card-title" data-testid="account-card">
      <h2 id="account-card-title" className="section-title">
        {t("account.card.title")}
      </h2>
      {current.isPending ? (
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("app.loading")}
        </p>
      ) : current.isError ? (
        <ErrorAlert message={errorText(t, current.error)} error={current.error} />
      ) : card ? (
        <p data-testid="account-card-current">
          {t("plan.paymentMethod", {
            brand: card.brand ? brandLabel(card.brand) : t("plan.card.genericBrand"),
            last4: card.last4,
          })}
        </p>
      ) : (
        <p className="muted" data-testid="account-card-none">
          {t("account.card.none")}
        </p>
      )}
      <OutcomeBox outcome={outcome} testId="account-card-outcome" />
      {card && sub && !editing ? (
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="account-card-change"
          onClick={() => {
            setEditing(true);
            setOutcome(null);
          }}
        >
          {t("account.card.change")}
        </button>
      ) : null}
      {card && sub && editing ? (
        <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
          <fieldset className="card-fieldset" disabled={busy}>
            <legend className="field-label">{t("account.card.new")}</legend>
            {sub.provider === "stripe" ? (
              sub.publishableKey ? (
                <StripeCardForm ref={cardRef} publishableKey={sub.publishableKey} disabled={busy} />
              ) : (
                <ErrorAlert message={t("payment.elementsNotLoaded")} />
              )
            ) : (
              <LocalCardForm ref={cardRef} disabled={busy} onEdit={() => setOutcome(null)} />
            )}
            <p className="hint">{t("account.card.hint")}</p>
          </fieldset>
          <div className="card-change-actions">
            <button type="submit" className="btn btn-primary" data-testid="account-card-save" disabled={busy}>
              {busy ? <span className="spinner spinner-light" aria-hidden="true" /> : null}
              {t("account.card.save")}
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              data-testid="account-card-cancel"
              disabled={busy}
              onClick={() => {
                setEditing(false);
                setOutcome(null);
              }}
            >
              {t("account.card.cancel")}
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
