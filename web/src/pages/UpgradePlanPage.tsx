import { FREE_PLAN, type PlanName } from "@kikitori/shared";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Navigate } from "react-router";
import { useAuth } from "../auth/AuthProvider.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { AuthModal } from "../plan/AuthModal.tsx";
import {
  createOrUpdateSubscription,
  fetchQuote,
  subscriptionKeyPrefix,
  useCurrentSubscription,
  usePlans,
} from "../plan/api.ts";
import {
  applyPlanChange,
  type ChangeBody,
  keepCurrentPlan,
  type PlanChangeOutcome,
  preparePayment,
  resumePayment,
} from "../plan/flow.ts";
import { formatDate } from "../plan/format.ts";
import type { CardFieldHandle } from "../plan/LocalCardForm.tsx";
import { noticeFromError } from "../plan/notice.ts";
import { PlanCardFields } from "../plan/PlanCardFields.tsx";
import { PlanConfirm, type PlanReview } from "../plan/PlanConfirm.tsx";
import { PlanChangeSummary, PlanOptions } from "../plan/PlanOptions.tsx";
import { PlanResult } from "../plan/PlanResult.tsx";
import { PlanStatus } from "../plan/PlanStatus.tsx";
import { parseSubscriptionResult } from "../plan/parse.ts";
import { formatPrice, isPaidPlan, type PlanChange, planChange, priceDifference } from "../plan/pricing.ts";
import { usePaymentProvider } from "../plan/usePaymentProvider.ts";
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
  return isPaidPlan(selected) ? "plan.submit.downgrade" : "plan.submit.free";
}

function PlanScreen({ uid }: { uid: string }) {
  const { t } = useTranslation();
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
  /** What the payment awaiting the bank's confirmation is for (shown in the 3-D Secure dialog). */
  const [authCharge, setAuthCharge] = useState<{ amount: number; currency: string } | null>(null);
  /** The plan that payment is for: the one being bought, also when a payment left waiting is resumed. */
  const [authPlan, setAuthPlan] = useState<PlanName | null>(null);
  /** The confirmation step of an upgrade: amount and card, shown before anything is charged. */
  const [review, setReview] = useState<PlanReview | null>(null);
  const cardRef = useRef<CardFieldHandle>(null);
  const { makeProvider, authRequest } = usePaymentProvider(current.data, cardRef);

  const sub = current.data;
  const currentPlan: PlanName = sub?.plan ?? usage.data?.plan ?? FREE_PLAN;
  const selected: PlanName = chosen ?? currentPlan;
  const change = planChange(currentPlan, selected);
  const pending = sub ? sub.pendingPlan : (usage.data?.pendingPlan ?? null);
  const billingDate = (isPaidPlan(currentPlan) ? sub?.nextBillingDate : null) ?? usage.data?.resetDate ?? null;
  const dateText = billingDate ? formatDate(billingDate, lang) : "";
  const currency = plans.data?.currency ?? "USD";
  const diff = plans.data ? priceDifference(plans.data.plans, currentPlan, selected) : null;
  const needsCard = isPaidPlan(selected) && change !== "none";
  const useSavedCard = !!sub?.paymentMethod && !newCard;
  const ready = !!sub && !!plans.data;
  const canSubmit = ready && change !== "none" && !processing;
  const planName = (p: PlanName) => t(`plan.names.${p}`);

  const submit = async (body: ChangeBody) => {
    setAuthPlan(body.selectedPlan);
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
    setReview(null);
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

  /** An upgrade charges: first the card that would be used and the server's quote, nothing charged yet. */
  const startReview = async () => {
    setProcessing(true);
    setResult(null);
    const saved = sub?.paymentMethod;
    const prepared = await preparePayment(
      { useSavedCard, savedCard: saved ? { brand: saved.brand ?? "", last4: saved.last4 } : null },
      makeProvider(),
    );
    if ("error" in prepared) {
      setResult({ kind: "error", notice: prepared.error });
      setProcessing(false);
      return;
    }
    try {
      const quote = await fetchQuote(selected, lang);
      setReview({ quote, paymentMethodId: prepared.paymentMethodId, card: prepared.card ?? quote.card });
    } catch (err) {
      setResult({ kind: "error", notice: noticeFromError(err, "payment.genericError") });
    }
    setProcessing(false);
  };

  const pay = () => {
    if (!review || processing) return;
    const { paymentMethodId } = review;
    void run(() =>
      applyPlanChange(
        {
          loggedIn: !!user,
          currentPlan,
          selectedPlan: review.quote.plan,
          useSavedCard,
          prepared: { paymentMethodId },
          confirmedAmount: review.quote.amountNow,
        },
        { provider: makeProvider(), submit },
      ),
    );
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!canSubmit || review) return;
    if (change === "upgrade") {
      void startReview();
      return;
    }
    void run(() =>
      applyPlanChange(
        { loggedIn: !!user, currentPlan, selectedPlan: selected, useSavedCard },
        { provider: makeProvider(), submit },
      ),
    );
  };
  const keepPlan = () => void run(() => keepCurrentPlan({ loggedIn: !!user, currentPlan }, { provider: null, submit }));
  const resume = (clientSecret: string, amount: number | null, plan: PlanName) => {
    setAuthCharge(amount !== null ? { amount, currency } : null);
    setAuthPlan(plan);
    void run(() => resumePayment(clientSecret, makeProvider()));
  };

  const choose = (p: PlanName) => {
    setChosen(p);
    setResult(null);
    setReview(null);
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
          <PlanStatus
            sub={sub}
            usage={usage.data}
            currentPlan={currentPlan}
            pending={pending}
            billingDate={billingDate}
            dateText={dateText}
            processing={processing}
            onKeep={keepPlan}
            onResume={resume}
          />
        ) : null}

        {ready ? (
          <form className="card plan-form" onSubmit={onSubmit} noValidate aria-busy={processing}>
            <h2 className="plan-form-title">{t("plan.chooseTitle")}</h2>
            <PlanOptions
              plans={plans.data.plans}
              currency={currency}
              currentPlan={currentPlan}
              pendingPlan={pending?.plan ?? null}
              selected={selected}
              disabled={processing}
              onChoose={choose}
            />
            <PlanChangeSummary
              change={change}
              selected={selected}
              diff={diff}
              currency={currency}
              dateText={dateText}
            />

            {review ? null : needsCard ? (
              <PlanCardFields
                sub={sub}
                newCard={newCard}
                onNewCard={(useNew) => {
                  setNewCard(useNew);
                  setReview(null);
                }}
                disabled={processing}
                cardRef={cardRef}
                onEdit={() => setResult((r) => (r?.kind === "error" ? null : r))}
                showTerms={isPaidPlan(currentPlan)}
              />
            ) : null}

            <PlanResult processing={processing} result={result} />

            {review ? (
              <PlanConfirm
                review={review}
                processing={processing}
                onPay={pay}
                onOtherCard={() => {
                  setReview(null);
                  setNewCard(true);
                }}
                onBack={() => setReview(null)}
              />
            ) : (
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
            )}
          </form>
        ) : null}
      </div>

      {authRequest ? (
        <AuthModal
          planLabel={planName(authPlan ?? selected)}
          amountText={authCharge ? formatPrice(authCharge.amount, authCharge.currency, lang) : null}
          onAnswer={(approve) => authRequest.resolve(approve)}
        />
      ) : null}
    </section>
  );
}
