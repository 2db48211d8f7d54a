import type { PlanName } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { Navigate } from "react-router";
import { useAuth } from "../auth/AuthProvider.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { AuthModal } from "./AuthModal.tsx";
import { PlanChoiceForm } from "./PlanChoiceForm.tsx";
import { PlanStatus } from "./PlanStatus.tsx";
import { formatPrice } from "./pricing.ts";
import { type PlanChangeFlow, usePlanChange } from "./usePlanChange.ts";

/** /{lang}/upgrade-plan: current plan, usage, plan selection and card payment. Login required. */
export function UpgradePlanPage() {
  const { user } = useAuth();
  const lang = useLang();
  if (!user) return <Navigate to={localePath(lang, ROUTES.login)} replace />;
  return <PlanScreen key={user.uid} uid={user.uid} />;
}

/** While the plan, the usage or the plans load, and why one of them failed to. */
function PlanLoadNotices({ flow }: { flow: PlanChangeFlow }) {
  const { t } = useTranslation();
  const { usage, current, plans } = flow;
  const loading = usage.isPending || current.isPending || plans.isPending;
  return (
    <>
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
    </>
  );
}

function PlanScreen({ uid }: { uid: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  usePageMeta("upgradePlan");
  const flow = usePlanChange(uid);
  const { sub, usage, plans, authRequest, authCharge } = flow;
  const planName = (p: PlanName) => t(`plan.names.${p}`);

  return (
    <section className="page plan-page">
      <PageHeader title={t("plan.title")} lead={t("plan.intro")} leadClassName="muted" />
      <PlanLoadNotices flow={flow} />

      <div className="plan-layout">
        {sub || usage.data ? (
          <PlanStatus
            sub={sub}
            usage={usage.data}
            currentPlan={flow.currentPlan}
            pending={flow.pending}
            billingDate={flow.billingDate}
            dateText={flow.dateText}
            processing={flow.processing}
            onKeep={flow.keepPlan}
            onResume={flow.resume}
          />
        ) : null}

        {sub && plans.data ? <PlanChoiceForm flow={flow} plans={plans.data} sub={sub} /> : null}
      </div>

      {authRequest ? (
        <AuthModal
          planLabel={planName(flow.authPlan ?? flow.selected)}
          amountText={authCharge ? formatPrice(authCharge.amount, authCharge.currency, lang) : null}
          onAnswer={(approve) => authRequest.resolve(approve)}
        />
      ) : null}
    </section>
  );
}
