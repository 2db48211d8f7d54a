import type { PlanName } from "@kikitori/shared";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useCallback, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Navigate } from "react-router";
import { useAuth } from "../auth/AuthProvider.tsx";
import { ErrorAlert, SupportLink } from "../components/ErrorAlert.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { UsageBar } from "../components/UsageBar.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { AuthModal } from "../plan/AuthModal.tsx";
import {
  confirmLocalPayment,
  createOrUpdateSubscription,
  subscriptionKeyPrefix,
  useCurrentSubscription,
  usePlans,
} from "../plan/api.ts";
import { brandLabel } from "../plan/card.ts";
import {
  applyPlanChange,
  type ChangeBody,
  type ConfirmOutcome,
  keepCurrentPlan,
  type PaymentProvider,
  type PlanChangeOutcome,
  resumePayment,
} from "../plan/flow.ts";
import { formatDate } from "../plan/format.ts";
import { type CardFieldHandle, LocalCardForm } from "../plan/LocalCardForm.tsx";
import { type Notice, noticeFromError, noticeFromErrorBody, noticeText, reasonNotice } from "../plan/notice.ts";
import { parseConfirmResult, parseSubscriptionResult, type SubscriptionState } from "../plan/parse.ts";
import { formatPrice, isPaidPlan, type PlanChange, planChange, priceDifference } from "../plan/pricing.ts";
import { confirmStripePayment, StripeCardForm } from "../plan/StripeCardForm.tsx";
import { useUsage } from "../plan/useUsage.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

/** /{lang}/upgrade-plan: current plan, usage, plan selection and card payment. Login required. */
export function UpgradePlanPage() {
  const { user } = useAuth();
  const lang = useLang();
  if (!user) return <Navigate to={localePath(lang, ROUTES.login)} replace />;
  return <PlanScreen key={user.uid} uid={user.uid} />;
}

function submitLabelKey(change: PlanChange, selected: PlanName): string {
  if (change === "none") return "plan.submit.current";
  if (change === "upgrade") return "plan.submit.upgrade";
  return selected === "free" ? "plan.submit.free" : "plan.submit.downgrade";
}

function autoRenewText(
  t: (key: string, o?: Record<string, unknown>) => string,
  sub: SubscriptionState | undefined,
  plan: PlanName,
  date: string,
): string {
  if (!isPaidPlan(plan)) return t("plan.autoRenew.terms");
  const name = t(`plan.names.${plan}`);
  if (sub?.pendingPlan?.plan === "free" || sub?.autoRenew === false)
    return t("plan.autoRenew.off", { plan: name, date });
  if (sub?.pendingPlan) return t("plan.autoRenew.switch", { plan: t(`plan.names.${sub.pendingPlan.plan}`), date });
  return t("plan.autoRenew.on", { plan: name, date });
}

function PlanScreen({ uid }: { uid: string }) {
  const { t } = useTranslation();
  const tr = useCallback((key: string, o?: Record<string, unknown>) => t(key, o ?? {}) as string, [t]);
  const lang = useLang();
  const { user } = useAuth();
  const queryClient = useQueryClient();
  usePageMeta("upgradePlan");

  const usage = useUsage(uid);
  const plans = usePlans(uid, lang);
  const current = useCurrentSubscription(uid, lang);

  const [chosen, setChosen] = useState<PlanName | null>(null);
  const [newCard, setNewCard] = useState(false);
  const [processing, setProcessing] = useState(false);
  const [result, setResult] = useState<PlanChangeOutcome | null>(null);
  const [authRequest, setAuthRequest] = useState<{ resolve: (approve: boolean) => void } | null>(null);
  /** What the payment awaiting the bank's confirmation is for (shown in the 3-D Secure dialog). */
  const [authCharge, setAuthCharge] = useState<{ amount: number; currency: string } | null>(null);
  const cardRef = useRef<CardFieldHandle>(null);

  const sub = current.data;
  const currentPlan: PlanName = sub?.plan ?? usage.data?.plan ?? "free";
  const selected: PlanName = chosen ?? currentPlan;
  const change = planChange(currentPlan, selected);
  const pending = sub ? sub.pendingPlan : (usage.data?.pendingPlan ?? null);
  const billingDate = (isPaidPlan(currentPlan) ? sub?.nextBillingDate : null) ?? usage.data?.resetDate ?? null;
  const dateText = billingDate ? formatDate(billingDate, lang) : "";
  const currency = plans.data?.currency ?? "USD";
  const diff = plans.data ? priceDifference(plans.data.plans, currentPlan, selected) : null;
  const needsCard = isPaidPlan(selected) && change !== "none";
  const savedCard = sub?.paymentMethod ?? null;
  const useSavedCard = !!savedCard && !newCard;
  const ready = !!sub && !!plans.data;
  const canSubmit = ready && change !== "none" && !processing;
  const planName = (p: PlanName) => t(`plan.names.${p}`);

  const confirmLocally = useCallback(async (clientSecret: string): Promise<ConfirmOutcome> => {
    const approve = await new Promise<boolean>((resolve) => setAuthRequest({ resolve }));
    setAuthRequest(null);
    let raw: unknown;
    try {
      raw = await confirmLocalPayment(clientSecret, approve);
    } catch (e) {
      return { error: noticeFromError(e, "payment.confirmationError") };
    }
    const r = parseConfirmResult(raw);
    if (!r) return { error: { key: "payment.confirmationError" } };
    if (r.error) return { error: noticeFromErrorBody(r.error, "payment.confirmationError") };
    if (!approve && r.status !== "succeeded") return { error: { key: "plan.auth.declined" } };
    return { status: r.status };
  }, []);

  /** The card provider of this server: Stripe.js for "stripe", the local card form and bank step otherwise. */
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
  const submit = async (body: ChangeBody) => {
    const raw = await createOrUpdateSubscription({ ...body, lang });
    setAuthCharge(parseSubscriptionResult(raw).charged ?? null);
    return raw;
  };

  /** Runs one plan action with the processing state, shows its outcome and refreshes plan and usage. */
  const run = async (action: () => Promise<PlanChangeOutcome>) => {
    if (processing) return;
    setProcessing(true);
    setResult(null);
    const outcome = await action();
    setResult(outcome.kind === "noop" ? null : outcome);
    setProcessing(false);
    if (outcome.kind === "success") {
      setChosen(null);
      setNewCard(false);
    }
    if (outcome.kind !== "noop") {
      void queryClient.invalidateQueries({ queryKey: ["usage"] });
      void queryClient.invalidateQueries({ queryKey: subscriptionKeyPrefix(uid) });
    }
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!canSubmit) return;
    void run(() =>
      applyPlanChange(
        { loggedIn: !!user, currentPlan, selectedPlan: selected, useSavedCard },
        { provider: makeProvider(), submit },
      ),
    );
  };
  const keepPlan = () => void run(() => keepCurrentPlan({ loggedIn: !!user, currentPlan }, { provider: null, submit }));
  const resume = (clientSecret: string, amount: number | null) => {
    setAuthCharge(amount !== null ? { amount, currency } : null);
    void run(() => resumePayment(clientSecret, makeProvider()));
  };

  const choose = (p: PlanName) => {
    setChosen(p);
    setResult(null);
  };

  const renderNotice = (notice: Notice) => {
    const text = noticeText(tr, notice);
    return notice.link ? (
      <>
        <span>{text}</span> <SupportLink href={notice.link} />
      </>
    ) : (
      text
    );
  };

  const loading = usage.isPending || current.isPending || plans.isPending;

  return (
    <section className="page plan-page">
      <PageHeader title={t("plan.title")} lead={t("plan.intro")} leadClassName="muted" />

      {loading ? (
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("plan.loading")}
        </p>
      ) : null}
      {usage.isError ? (
        <ErrorAlert message={errorText(t, usage.error, "messages.serverError")} error={usage.error} />
      ) : null}
      {current.isError ? (
        <ErrorAlert message={errorText(t, current.error, "messages.serverError")} error={current.error} />
      ) : null}
      {plans.isError && !current.isError ? (
        <ErrorAlert message={errorText(t, plans.error, "messages.serverError")} error={plans.error} />
      ) : null}

      <div className="plan-layout">
        {sub || usage.data ? (
          <div className="card plan-card plan-status">
            <div className="plan-current">
              <span className="muted">{t("plan.currentPlan")}</span>
              <span className={`plan-badge plan-${currentPlan}`} data-testid="plan-current" data-plan={currentPlan}>
                {planName(currentPlan)}
              </span>
            </div>
            {sub?.paymentMethod ? (
              <p className="muted plan-line" data-testid="plan-payment-method">
                {t("plan.paymentMethod", {
                  brand: sub.paymentMethod.brand ? brandLabel(sub.paymentMethod.brand) : t("plan.card.genericBrand"),
                  last4: sub.paymentMethod.last4,
                })}
              </p>
            ) : null}
            {billingDate ? (
              <p className="plan-line" data-testid="plan-next-billing" data-date={billingDate}>
                {isPaidPlan(currentPlan)
                  ? t("plan.resetDate", { date: dateText })
                  : t("plan.quotaReset", { date: dateText })}
              </p>
            ) : null}
            {pending ? (
              <div className="alert alert-info plan-notice" role="status">
                <span data-testid="plan-pending" data-plan={pending.plan}>
                  {t("plan.pending", { plan: planName(pending.plan), date: formatDate(pending.date, lang) })}
                </span>
                {sub ? (
                  <button
                    type="button"
                    className="btn btn-small btn-secondary"
                    data-testid="plan-keep"
                    disabled={processing}
                    onClick={keepPlan}
                  >
                    {t("plan.keepPlan", { plan: planName(currentPlan) })}
                  </button>
                ) : null}
              </div>
            ) : null}
            {sub?.pendingPayment ? (
              <div className="alert alert-warning plan-notice" role="status" data-testid="plan-pending-payment">
                <span>{t("plan.pendingPayment", { plan: planName(sub.pendingPayment.plan) })}</span>
                <button
                  type="button"
                  className="btn btn-small btn-primary"
                  data-testid="plan-resume-payment"
                  disabled={processing}
                  onClick={() =>
                    sub.pendingPayment && resume(sub.pendingPayment.clientSecret, sub.pendingPayment.amount)
                  }
                >
                  {t("plan.resumePayment")}
                </button>
              </div>
            ) : null}
            <p className="muted plan-line" data-testid="plan-auto-renew">
              {autoRenewText(tr, sub, currentPlan, dateText)}
            </p>
            {sub?.lastRenewalFailure ? (
              <div className="alert alert-warning" role="alert" data-testid="plan-renewal-failure">
                <strong>
                  {sub.lastRenewalFailure.date
                    ? t("plan.renewalFailure", { date: formatDate(sub.lastRenewalFailure.date, lang) })
                    : t("plan.renewalFailureNoDate")}
                </strong>
                {sub.lastRenewalFailure.reason || sub.lastRenewalFailure.code ? (
                  <span className="renewal-reason">
                    {" "}
                    {t("plan.renewalReason", {
                      reason: noticeText(tr, reasonNotice(sub.lastRenewalFailure.reason, sub.lastRenewalFailure.code)),
                    })}
                  </span>
                ) : null}
              </div>
            ) : null}

            {usage.data ? (
              <>
                <h2 className="section-title">{t("plan.usageTitle")}</h2>
                <div className="usage-list">
                  <UsageBar
                    testId="usage-minutes"
                    label={t("plan.minutes")}
                    used={usage.data.totalMinutesUsed}
                    max={usage.data.maxMinutes}
                    unit="minutes"
                  />
                  <UsageBar
                    testId="usage-summaries"
                    label={t("plan.summaries")}
                    used={usage.data.summarizeUsage}
                    max={usage.data.maxSummaryUsage}
                    unit="times"
                  />
                  <UsageBar
                    testId="usage-titles"
                    label={t("plan.titles")}
                    used={usage.data.titlesAndHeadingsUsage}
                    max={usage.data.maxTitlesAndHeadingsUsage}
                    unit="times"
                  />
                </div>
              </>
            ) : null}
          </div>
        ) : null}

        {ready ? (
          <form className="card plan-form" onSubmit={onSubmit} noValidate aria-busy={processing}>
            <h2 className="plan-form-title">{t("plan.chooseTitle")}</h2>
            <fieldset className="plan-options" data-testid="plan-select" disabled={processing}>
              <legend className="visually-hidden">{t("plan.chooseTitle")}</legend>
              {plans.data.plans.map((p) => {
                const isCurrent = p.name === currentPlan;
                const isPending = pending?.plan === p.name;
                return (
                  <label
                    key={p.name}
                    className={`plan-option plan-${p.name}${selected === p.name ? " selected" : ""}${isCurrent ? " current" : ""}`}
                  >
                    <input
                      type="radio"
                      name="plan"
                      value={p.name}
                      checked={selected === p.name}
                      onChange={() => choose(p.name)}
                      data-testid={`plan-option-${p.name}`}
                    />
                    <span className="plan-option-head">
                      <span className="plan-option-name">{planName(p.name)}</span>
                      {isCurrent ? (
                        <span className="plan-tag">{t("plan.currentTag")}</span>
                      ) : isPending ? (
                        <span className="plan-tag plan-tag-pending">{t("plan.scheduledTag")}</span>
                      ) : null}
                    </span>
                    <span className="plan-option-price">
                      <span className="plan-price" data-testid={`plan-price-${p.name}`} data-amount={p.price}>
                        {formatPrice(p.price, currency, lang)}
                      </span>
                      <span className="plan-period">{t("plan.perMonth")}</span>
                    </span>
                    <span className="plan-option-desc">{t(`plan.descriptions.${p.name}`)}</span>
                    {p.maxMinutes !== undefined || p.maxSummaries !== undefined || p.maxTitleRuns !== undefined ? (
                      <span className="plan-quotas" data-testid={`plan-quotas-${p.name}`}>
                        {p.maxMinutes !== undefined ? (
                          <span>{t("plan.quotas.minutes", { count: p.maxMinutes })}</span>
                        ) : null}
                        {p.maxSummaries !== undefined ? (
                          <span>{t("plan.quotas.summaries", { count: p.maxSummaries })}</span>
                        ) : null}
                        {p.maxTitleRuns !== undefined ? (
                          <span>{t("plan.quotas.titles", { count: p.maxTitleRuns })}</span>
                        ) : null}
                      </span>
                    ) : null}
                  </label>
                );
              })}
            </fieldset>

            {change !== "none" ? (
              <div className="plan-change">
                {diff ? (
                  <p className={`plan-diff plan-diff-${diff.direction}`} data-testid="plan-price-diff">
                    <span className="muted">{t("plan.priceDiff.label")}</span>{" "}
                    <strong dir="ltr">
                      {t(`plan.priceDiff.${diff.direction}`, { amount: formatPrice(diff.amount, currency, lang) })}
                    </strong>
                  </p>
                ) : null}
                <p className="hint" data-testid="plan-effect">
                  {change === "upgrade"
                    ? t("plan.effect.upgrade", { plan: planName(selected) })
                    : selected === "free"
                      ? t("plan.effect.free", { date: dateText })
                      : t("plan.effect.downgrade", { plan: planName(selected), date: dateText })}
                </p>
              </div>
            ) : null}

            {needsCard ? (
              <fieldset className="card-fieldset" disabled={processing}>
                <legend className="field-label">{t("plan.card.title")}</legend>
                {savedCard ? (
                  <div className="card-choice">
                    <label className="card-choice-option">
                      <input
                        type="radio"
                        name="card-source"
                        checked={!newCard}
                        onChange={() => setNewCard(false)}
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
                        onChange={() => setNewCard(true)}
                        data-testid="card-new"
                      />
                      <span>{t("plan.card.useNew")}</span>
                    </label>
                  </div>
                ) : null}
                {useSavedCard ? null : sub.provider === "stripe" ? (
                  sub.publishableKey ? (
                    <StripeCardForm ref={cardRef} publishableKey={sub.publishableKey} disabled={processing} />
                  ) : (
                    <ErrorAlert message={t("payment.elementsNotLoaded")} />
                  )
                ) : (
                  <LocalCardForm
                    ref={cardRef}
                    disabled={processing}
                    onEdit={() => setResult((r) => (r?.kind === "error" ? null : r))}
                  />
                )}
                {isPaidPlan(currentPlan) ? <p className="hint">{t("plan.autoRenew.terms")}</p> : null}
              </fieldset>
            ) : null}

            {processing ? (
              <p className="status-line" role="status" data-testid="plan-processing">
                <span className="spinner" aria-hidden="true" />
                {t("plan.processing")}
              </p>
            ) : null}
            {result?.kind === "success" ? (
              <div className="alert alert-success" role="status" data-testid="plan-message">
                {renderNotice(result.notice)}
                {result.charged ? (
                  <span className="plan-charged" data-testid="plan-charged">
                    {" "}
                    {t("plan.result.charged", {
                      amount: formatPrice(result.charged.amount, result.charged.currency, lang),
                    })}
                  </span>
                ) : null}
              </div>
            ) : null}
            {result?.kind === "warning" ? (
              <div className="alert alert-warning" role="alert" data-testid="plan-warning">
                {renderNotice(result.notice)}
              </div>
            ) : null}
            {result?.kind === "error" ? (
              <div className="alert alert-error" role="alert" data-testid="plan-error">
                {renderNotice(result.notice)}
              </div>
            ) : null}

            <button
              type="submit"
              className="btn btn-primary btn-block"
              data-testid="plan-submit"
              disabled={!canSubmit}
              aria-busy={processing}
            >
              {processing ? <span className="spinner spinner-light" aria-hidden="true" /> : null}
              {t(submitLabelKey(change, selected), { plan: planName(selected) })}
            </button>
          </form>
        ) : null}
      </div>

      {authRequest ? (
        <AuthModal
          planLabel={planName(selected)}
          amountText={authCharge ? formatPrice(authCharge.amount, authCharge.currency, lang) : null}
          onAnswer={(approve) => authRequest.resolve(approve)}
        />
      ) : null}
    </section>
  );
}
