import { useTranslation } from "react-i18next";
import { Navigate } from "react-router";
import { useAuth } from "../auth/AuthProvider.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { UsageBar } from "../components/UsageBar.tsx";
import { usePageTitle } from "../components/usePageTitle.ts";
import { errorText } from "../i18n/errorText.ts";
import { formatAmount, formatDate } from "../plan/format.ts";
import { useUsage } from "../plan/useUsage.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

/** The plan screen. For now: current plan and usage; plan selection and payment come with billing. */
export function UpgradePlanPage() {
  const { user } = useAuth();
  const lang = useLang();
  if (!user) return <Navigate to={localePath(lang, ROUTES.login)} replace />;
  return <PlanOverview uid={user.uid} />;
}

function PlanOverview({ uid }: { uid: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  const usage = useUsage(uid);
  usePageTitle(t("plan.title"));
  const n = (v: number) => formatAmount(v, lang);

  return (
    <section className="page">
      <header className="page-header">
        <h1 data-testid="page-title">{t("plan.title")}</h1>
        <p className="muted">{t("plan.intro")}</p>
      </header>

      {usage.isPending ? (
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("plan.loading")}
        </p>
      ) : null}
      {usage.isError ? (
        <ErrorAlert message={errorText(t, usage.error, "messages.serverError")} error={usage.error} />
      ) : null}

      {usage.data ? (
        <div className="card plan-card">
          <div className="plan-current">
            <span className="muted">{t("plan.currentPlan")}</span>
            <span className={`plan-badge plan-${usage.data.plan}`} data-testid="current-plan">
              {t(`plan.names.${usage.data.plan}`)}
            </span>
          </div>
          {usage.data.pendingPlan ? (
            <div className="alert alert-info" role="status" data-testid="pending-plan">
              {t("plan.pending", {
                plan: t(`plan.names.${usage.data.pendingPlan.plan}`),
                date: formatDate(usage.data.pendingPlan.date, lang),
              })}
            </div>
          ) : null}
          <h2 className="section-title">{t("plan.usageTitle")}</h2>
          <div className="usage-list">
            <UsageBar
              testId="usage-minutes"
              label={t("plan.minutes")}
              used={usage.data.totalMinutesUsed}
              max={usage.data.maxMinutes}
              text={t("plan.minutesUsage", { used: n(usage.data.totalMinutesUsed), max: n(usage.data.maxMinutes) })}
            />
            <UsageBar
              testId="usage-summaries"
              label={t("plan.summaries")}
              used={usage.data.summarizeUsage}
              max={usage.data.maxSummaryUsage}
              text={t("plan.timesUsage", { used: n(usage.data.summarizeUsage), max: n(usage.data.maxSummaryUsage) })}
            />
            <UsageBar
              testId="usage-titles"
              label={t("plan.titles")}
              used={usage.data.titlesAndHeadingsUsage}
              max={usage.data.maxTitlesAndHeadingsUsage}
              text={t("plan.timesUsage", {
                used: n(usage.data.titlesAndHeadingsUsage),
                max: n(usage.data.maxTitlesAndHeadingsUsage),
              })}
            />
          </div>
          <p className="muted reset-date" data-testid="reset-date">
            {t("plan.resetDate", { date: formatDate(usage.data.resetDate, lang) })}
          </p>
        </div>
      ) : null}
    </section>
  );
}
