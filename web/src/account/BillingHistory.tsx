import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { PaymentRow } from "../auth/accountApi.ts";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { errorText } from "../i18n/errorText.ts";
import { saveBlob } from "../lib/download.ts";
import { fetchReceipt } from "../plan/api.ts";
import { formatDate } from "../plan/format.ts";
import { formatPrice } from "../plan/pricing.ts";
import { useLang } from "../routing/useLang.ts";

/** The account's payments, newest first, with a PDF receipt for each paid one. */
export function BillingHistory({ rows, loading, error }: { rows?: PaymentRow[]; loading: boolean; error: unknown }) {
  const { t } = useTranslation();
  const lang = useLang();
  const captionId = useId();
  const describe = (p: PaymentRow) =>
    t(p.kind === "renewal" ? "account.billing.renewal" : "account.billing.upgrade", {
      plan: t(`plan.names.${p.plan}`),
    });
  const [receiptError, setReceiptError] = useState<unknown>(null);
  const [fetching, setFetching] = useState<string | null>(null);
  /** The PDF receipt the billing service makes (invoice number, seller and buyer, tax lines). */
  const saveReceipt = async (p: PaymentRow) => {
    setReceiptError(null);
    setFetching(p.id);
    try {
      const { blob, fileName } = await fetchReceipt(p.id);
      saveBlob(blob, fileName);
    } catch (err) {
      setReceiptError(err);
    } finally {
      setFetching(null);
    }
  };
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
          {receiptError ? <ErrorAlert message={errorText(t, receiptError)} error={receiptError} /> : null}
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
                    {p.status === "succeeded" || p.status === "refunded" ? (
                      <button
                        type="button"
                        className="btn btn-ghost btn-small"
                        data-testid="account-receipt"
                        disabled={fetching === p.id}
                        aria-busy={fetching === p.id}
                        onClick={() => void saveReceipt(p)}
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
