import { useTranslation } from "react-i18next";
import { SupportLink } from "../components/ErrorAlert.tsx";
import { useLang } from "../routing/useLang.ts";
import type { PlanChangeOutcome } from "./flow.ts";
import { type Notice, noticeText, type Translate } from "./notice.ts";
import { formatPrice } from "./pricing.ts";

function NoticeText({ notice }: { notice: Notice }) {
  const { t } = useTranslation();
  const tr: Translate = (key, o) => t(key, o ?? {}) as string;
  const text = noticeText(tr, notice);
  return notice.link ? (
    <>
      <span>{text}</span> <SupportLink href={notice.link} />
    </>
  ) : (
    text
  );
}

/** The plan form's progress line and the outcome of the last plan action. */
export function PlanResult({ processing, result }: { processing: boolean; result: PlanChangeOutcome | null }) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <>
      {processing ? (
        <p className="status-line" role="status" data-testid="plan-processing">
          <span className="spinner" aria-hidden="true" />
          {t("plan.processing")}
        </p>
      ) : null}
      {result?.kind === "success" ? (
        <div className="alert alert-success" role="status" data-testid="plan-message">
          <NoticeText notice={result.notice} />
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
          <NoticeText notice={result.notice} />
        </div>
      ) : null}
      {result?.kind === "error" ? (
        <div className="alert alert-error" role="alert" data-testid="plan-error">
          <NoticeText notice={result.notice} />
        </div>
      ) : null}
    </>
  );
}
