import type { PlanName, UsageRecord } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { UsageBar } from "../components/UsageBar.tsx";
import { useLang } from "../routing/useLang.ts";
import { brandLabel } from "./card.ts";
import { formatDate } from "./format.ts";
import { noticeText, reasonNotice, type Translate } from "./notice.ts";
import type { SubscriptionState } from "./parse.ts";
import { isPaidPlan } from "./pricing.ts";

/** The auto-renewal line: terms on the free plan, else whether and to what the paid plan renews. */
function autoRenewText(t: Translate, sub: SubscriptionState | undefined, plan: PlanName, date: string): string {
  if (!isPaidPlan(plan)) return t("plan.autoRenew.terms");
  const name = t(`plan.names.${plan}`);
  if ((sub?.pendingPlan && !isPaidPlan(sub.pendingPlan.plan)) || sub?.autoRenew === false)
    return t("plan.autoRenew.off", { plan: name, date });
  if (sub?.pendingPlan) return t("plan.autoRenew.switch", { plan: t(`plan.names.${sub.pendingPlan.plan}`), date });
  return t("plan.autoRenew.on", { plan: name, date });
}

/**
 * The plan screen's status card: current plan, card on file, next billing or reset date, a scheduled
 * switch ("keep my plan"), a payment left in 3-D Secure, auto-renewal, a failed renewal and the usage.
 */
export function PlanStatus({
  sub,
  usage,
  currentPlan,
  pending,
  billingDate,
  dateText,
  processing,
  onKeep,
  onResume,
}: {
  sub: SubscriptionState | undefined;
  usage: UsageRecord | undefined;
  currentPlan: PlanName;
  pending: { plan: PlanName; date: string } | null;
  billingDate: string | null;
  dateText: string;
  processing: boolean;
  onKeep: () => void;
  onResume: (clientSecret: string, amount: number | null, plan: PlanName) => void;
}) {
  const { t } = useTranslation();
  const tr: Translate = (key, o) => t(key, o ?? {}) as string;
  const lang = useLang();
  const planName = (p: PlanName) => t(`plan.names.${p}`);

  return (
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
          {isPaidPlan(currentPlan) ? t("plan.resetDate", { date: dateText }) : t("plan.quotaReset", { date: dateText })}
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
              onClick={onKeep}
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
              sub.pendingPayment &&
              onResume(sub.pendingPayment.clientSecret, sub.pendingPayment.amount, sub.pendingPayment.plan)
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

      {usage ? <PlanUsage usage={usage} /> : null}
    </div>
  );
}

function PlanUsage({ usage }: { usage: UsageRecord }) {
  const { t } = useTranslation();
  return (
    <>
      <h2 className="section-title">{t("plan.usageTitle")}</h2>
      <div className="usage-list">
        <UsageBar
          testId="usage-minutes"
          label={t("plan.minutes")}
          used={usage.totalMinutesUsed}
          max={usage.maxMinutes}
          unit="minutes"
        />
        <UsageBar
          testId="usage-summaries"
          label={t("plan.summaries")}
          used={usage.summarizeUsage}
          max={usage.maxSummaryUsage}
          unit="times"
        />
        <UsageBar
          testId="usage-titles"
          label={t("plan.titles")}
          used={usage.titlesAndHeadingsUsage}
          max={usage.maxTitlesAndHeadingsUsage}
          unit="times"
        />
      </div>
    </>
  );
}
