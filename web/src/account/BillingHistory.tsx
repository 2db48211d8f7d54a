import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { PaymentRow } from "../auth/accountApi.ts";
import { receiptFileName, receiptText } from "../auth/receipt.ts";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { useAppConfig } from "../config/appConfig.ts";
import { errorText } from "../i18n/errorText.ts";
import { formatDate } from "../plan/format.ts";
import { formatPrice } from "../plan/pricing.ts";
import { useLang } from "../routing/useLang.ts";
import { saveFile } from "./parts.tsx";

/** The account's payments, newest first, with a text receipt for each successful one. */
export function BillingHistory({ rows, loading, error }: { rows?: PaymentRow[]; loading: boolean; error: unknown }) {
  const { t } = useTranslation();
  const lang = useLang();
  const { appName } = useAppConfig();
  const captionId = useId();
  const describe = (p: PaymentRow) =>
    t(p.kind === "renewal" ? "account.billing.renewal" : "account.billing.upgrade", {
      plan: t(`plan.names.${p.plan}`),
    });
  const saveReceipt = (p: PaymentRow) =>
    saveFile(
      receiptFileName(p),
      receiptText(p, {
        title: t("account.billing.receipt"),
        appName,
        labels: {
          paymentId: t("account.billing.paymentId"),
          date: t("account.billing.date"),
          description: t("account.billing.description"),
          period: t("account.billing.period"),
          card: t("account.billing.card"),
          amount: t("account.billing.amount"),
          status: t("account.billing.status"),
        },
        description: describe(p),
        status: t(`account.billing.statuses.${p.status}`, { defaultValue: p.status }),
        date: (iso) => formatDate(iso, lang),
        amount: (r) => formatPrice(r.amount, r.currency, lang),
      }),
      "text/plain;charset=utf-8",
    );
  return (
    <section className="card account-card" aria-labelledby={captionId} data-testid="account-billing">
      <h2 id={captionId} className="section-title">
        {t("account.billing.title")}
      </h2>
      {loading ? (
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("app.loading")}
        </p>
      ) : error ? (
        <ErrorAlert message={errorText(t, error)} error={error} />
      ) : !rows?.length ? (
        <p className="muted" data-testid="account-billing-empty">
          {t("account.billing.empty")}
        </p>
      ) : (
        <div className="table-scroll">
          <table className="account-table" aria-labelledby={captionId}>
            <thead>
              <tr>
                <th scope="col">{t("account.billing.date")}</th>
                <th scope="col">{t("account.billing.description")}</th>
                <th scope="col">{t("account.billing.amount")}</th>
                <th scope="col">{t("account.billing.status")}</th>
                <th scope="col">
                  <span className="visually-hidden">{t("account.billing.receipt")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.id} data-testid="account-payment" data-status={p.status}>
                  <td>{formatDate(p.date, lang)}</td>
                  <td>
                    {describe(p)}
                    {p.card ? <span className="muted account-card-line">{p.card}</span> : null}
                  </td>
                  <td className="num">{formatPrice(p.amount, p.currency, lang)}</td>
                  <td>{t(`account.billing.statuses.${p.status}`, { defaultValue: p.status })}</td>
                  <td>
                    {p.status === "succeeded" ? (
                      <button
                        type="button"
                        className="btn btn-ghost btn-small"
                        data-testid="account-receipt"
                        onClick={() => saveReceipt(p)}
                      >
                        {t("account.billing.receipt")}
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
