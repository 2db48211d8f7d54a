import type { PlanName } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import type { PlanOffer } from "./parse.ts";
import { formatPrice, isPaidPlan, type PlanChange, type PriceDifference } from "./pricing.ts";

/** The plan choice: one radio per plan with its price, description and quotas. */
export function PlanOptions({
  plans,
  currency,
  currentPlan,
  pendingPlan,
  selected,
  disabled,
  onChoose,
}: {
  plans: readonly PlanOffer[];
  currency: string;
  currentPlan: PlanName;
  pendingPlan: PlanName | null;
  selected: PlanName;
  disabled: boolean;
  onChoose: (plan: PlanName) => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <fieldset className="plan-options" data-testid="plan-select" disabled={disabled}>
      <legend className="visually-hidden">{t("plan.chooseTitle")}</legend>
      {plans.map((p) => {
        const isCurrent = p.name === currentPlan;
        const isPending = pendingPlan === p.name;
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
              onChange={() => onChoose(p.name)}
              data-testid={`plan-option-${p.name}`}
            />
            <span className="plan-option-head">
              <span className="plan-option-name">{t(`plan.names.${p.name}`)}</span>
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
            <span className="plan-quotas" data-testid={`plan-quotas-${p.name}`}>
              <span>{t("plan.quotas.minutes", { count: p.maxMinutes })}</span>
              <span>{t("plan.quotas.summaries", { count: p.maxSummaries })}</span>
              <span>{t("plan.quotas.titles", { count: p.maxTitleRuns })}</span>
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}

/** What the selected change does: the price difference between paid plans, and when it takes effect. */
export function PlanChangeSummary({
  change,
  selected,
  diff,
  currency,
  dateText,
}: {
  change: PlanChange;
  selected: PlanName;
  diff: PriceDifference | null;
  currency: string;
  dateText: string;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  if (change === "none") return null;
  const planName = t(`plan.names.${selected}`);
  return (
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
          ? t("plan.effect.upgrade", { plan: planName })
          : !isPaidPlan(selected)
            ? t("plan.effect.free", { date: dateText })
            : t("plan.effect.downgrade", { plan: planName, date: dateText })}
      </p>
    </div>
  );
}
