import type { PlanName } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { PlanCardFields } from "./PlanCardFields.tsx";
import { PlanConfirm } from "./PlanConfirm.tsx";
import { PlanChangeSummary, PlanOptions } from "./PlanOptions.tsx";
import { PlanResult } from "./PlanResult.tsx";
import { isPaidPlan, type PlanChange } from "./pricing.ts";
import type { PlanChangeFlow } from "./usePlanChange.ts";

function submitLabelKey(change: PlanChange, selected: PlanName): string {
  if (change === "none") return "plan.submit.current";
  if (change === "upgrade") return "plan.submit.upgrade";
  return isPaidPlan(selected) ? "plan.submit.downgrade" : "plan.submit.free";
}

/**
 * The plan screen's form: the plans to choose from, what the change means, the card (saved or new),
 * the outcome, and the submit button or, for an upgrade, its confirmation before paying.
 */
export function PlanChoiceForm({
  flow,
  plans,
  sub,
}: {
  flow: PlanChangeFlow;
  plans: NonNullable<PlanChangeFlow["plans"]["data"]>;
  sub: NonNullable<PlanChangeFlow["sub"]>;
}) {
  const { t } = useTranslation();
  const { currentPlan, selected, change, pending, processing, review, currency } = flow;
  return (
    <form className="card plan-form" onSubmit={flow.onSubmit} noValidate aria-busy={processing}>
      <h2 className="plan-form-title">{t("plan.chooseTitle")}</h2>
      <PlanOptions
        plans={plans.plans}
        currency={currency}
        currentPlan={currentPlan}
        pendingPlan={pending?.plan ?? null}
        selected={selected}
        disabled={processing}
        onChoose={flow.choose}
      />
      <PlanChangeSummary
        change={change}
        selected={selected}
        diff={flow.diff}
        currency={currency}
        dateText={flow.dateText}
      />

      {review ? null : flow.needsCard ? (
        <PlanCardFields
          sub={sub}
          newCard={flow.newCard}
          onNewCard={(useNew) => {
            flow.setNewCard(useNew);
            flow.setReview(null);
          }}
          disabled={processing}
          cardRef={flow.cardRef}
          onEdit={() => flow.setResult((r) => (r?.kind === "error" ? null : r))}
          showTerms={isPaidPlan(currentPlan)}
        />
      ) : null}

      <PlanResult processing={processing} result={flow.result} />

      {review ? (
        <PlanConfirm
          review={review}
          processing={processing}
          onPay={flow.pay}
          onOtherCard={() => {
            flow.setReview(null);
            flow.setNewCard(true);
          }}
          onBack={() => flow.setReview(null)}
        />
      ) : (
        <button
          type="submit"
          className="btn btn-primary btn-block"
          data-testid="plan-submit"
          disabled={!flow.canSubmit}
          aria-busy={processing}
        >
          {processing ? <span className="spinner spinner-light" aria-hidden="true" /> : null}
          {t(submitLabelKey(change, selected), { plan: t(`plan.names.${selected}`) })}
        </button>
      )}
    </form>
  );
}
