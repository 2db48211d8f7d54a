import { PASSWORD_MIN } from "@kikitori/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, Navigate, useNavigate } from "react-router";
import { isApiError } from "../api/errors.ts";
import { useAuth } from "../auth/AuthProvider.tsx";
import { type Account, accountApi, exportFileName, type PaymentRow } from "../auth/accountApi.ts";
import { receiptFileName, receiptText } from "../auth/receipt.ts";
import { EmailField, useEmailField } from "../components/AuthFields.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { useAppConfig } from "../config/appConfig.ts";
import { errorText } from "../i18n/errorText.ts";
import { saveBlob } from "../lib/download.ts";
import { formatDate } from "../plan/format.ts";
import { formatPrice } from "../plan/pricing.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

type Outcome = { ok: true; message: string } | { ok: false; message: string; cause?: unknown } | null;

/**
 * The account page (issue 16, points 3 and 4): who is logged in, password and e-mail changes, billing
 * history, a download of one's data, and deleting the account with the password.
 */
export function AccountPage() {
  const { user } = useAuth();
  const lang = useLang();
  if (!user) return <Navigate to={localePath(lang, ROUTES.login)} replace />;
  return <AccountScreen key={user.uid} uid={user.uid} />;
}

function AccountScreen({ uid }: { uid: string }) {
  const { t } = useTranslation();
  usePageMeta("account");
  const account = useQuery({ queryKey: ["account", uid], queryFn: ({ signal }) => accountApi.get(signal) });
  const payments = useQuery({
    queryKey: ["account", uid, "payments"],
    queryFn: ({ signal }) => accountApi.payments(signal),
  });
  const data = account.data;

  return (
    <section className="page account-page">
      <PageHeader title={t("account.title")} lead={t("account.lead")} />
      <div className="account-grid">
        <section className="card account-card" aria-labelledby="account-who" data-testid="account-summary">
          <h2 id="account-who" className="section-title">
            {t("account.summaryTitle")}
          </h2>
          {account.isPending ? (
            <p className="status-line" role="status">
              <span className="spinner" aria-hidden="true" />
              {t("app.loading")}
            </p>
          ) : data ? (
            <AccountSummary account={data} />
          ) : (
            <ErrorAlert message={errorText(t, account.error)} error={account.error} />
          )}
        </section>

        <ChangePassword />
        <ChangeEmail current={data?.email ?? ""} />
        <BillingHistory rows={payments.data?.payments} loading={payments.isPending} error={payments.error} />
        <DataDownload />
        <DeleteAccount account={data ?? null} />
      </div>
    </section>
  );
}

function AccountSummary({ account }: { account: Account }) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <dl className="account-facts">
      <div>
        <dt>{t("auth.email")}</dt>
        <dd data-testid="account-email" dir="ltr">
          {account.email}
        </dd>
      </div>
      <div>
        <dt>{t("account.planLabel")}</dt>
        <dd data-testid="account-plan" data-plan={account.plan}>
          {t(`plan.names.${account.plan}`)} ·{" "}
          <Link to={localePath(lang, ROUTES.upgradePlan)}>{t("account.managePlan")}</Link>
        </dd>
      </div>
      <div>
        <dt>{t("account.memberSince")}</dt>
        <dd>{formatDate(account.createdAt, lang)}</dd>
      </div>
    </dl>
  );
}

function OutcomeBox({ outcome, testId }: { outcome: Outcome; testId: string }) {
  if (!outcome) return null;
  return outcome.ok ? (
    <p className="alert alert-success" role="status" data-testid={testId}>
      {outcome.message}
    </p>
  ) : (
    <ErrorAlert message={outcome.message} error={outcome.cause} testId={testId} />
  );
}

function PasswordInput({
  id,
  label,
  value,
  onChange,
  disabled,
  autoComplete,
  hint,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  disabled: boolean;
  autoComplete: "current-password" | "new-password";
  hint?: string;
}) {
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        data-testid={id}
        type="password"
        autoComplete={autoComplete}
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
        aria-describedby={hint ? hintId : undefined}
      />
      {hint ? (
        <p id={hintId} className="hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

function ChangePassword() {
  const { t } = useTranslation();
  const { replaceSession } = useAuth();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!current || !next) return setOutcome({ ok: false, message: t("validation.passwordRequired") });
    if (next.length < PASSWORD_MIN) {
      return setOutcome({ ok: false, message: t("validation.passwordTooShort", { min: PASSWORD_MIN }) });
    }
    setBusy(true);
    setOutcome(null);
    try {
      replaceSession(await accountApi.changePassword(current, next));
      setCurrent("");
      setNext("");
      setOutcome({ ok: true, message: t("account.password.done") });
    } catch (err) {
      setOutcome({ ok: false, message: errorText(t, err), cause: err });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card account-card" aria-labelledby="account-password-title">
      <h2 id="account-password-title" className="section-title">
        {t("account.password.title")}
      </h2>
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <PasswordInput
          id="account-current-password"
          label={t("account.password.current")}
          value={current}
          onChange={setCurrent}
          disabled={busy}
          autoComplete="current-password"
        />
        <PasswordInput
          id="account-new-password"
          label={t("account.password.new")}
          value={next}
          onChange={setNext}
          disabled={busy}
          autoComplete="new-password"
          hint={t("auth.register.passwordHint", { min: PASSWORD_MIN })}
        />
        <OutcomeBox outcome={outcome} testId="account-password-message" />
        <div className="button-row">
          <button type="submit" className="btn btn-primary" data-testid="account-password-submit" disabled={busy}>
            {t("account.password.submit")}
          </button>
        </div>
      </form>
    </section>
  );
}

function ChangeEmail({ current }: { current: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  const emailField = useEmailField();
  const { email } = emailField;
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!emailField.check()) return;
    if (!password) return setOutcome({ ok: false, message: t("validation.passwordRequired") });
    setBusy(true);
    setOutcome(null);
    try {
      const { pendingEmail } = await accountApi.changeEmail(password, email.trim(), lang);
      setPassword("");
      setOutcome({ ok: true, message: t("account.email.sent", { email: pendingEmail, current }) });
    } catch (err) {
      setOutcome({ ok: false, message: errorText(t, err), cause: err });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card account-card" aria-labelledby="account-email-title">
      <h2 id="account-email-title" className="section-title">
        {t("account.email.title")}
      </h2>
      <p className="hint">{t("account.email.hint")}</p>
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <EmailField id="account-new-email" label={t("account.email.new")} {...emailField.field} disabled={busy} />
        <PasswordInput
          id="account-email-password"
          label={t("account.password.current")}
          value={password}
          onChange={setPassword}
          disabled={busy}
          autoComplete="current-password"
        />
        <OutcomeBox outcome={outcome} testId="account-email-message" />
        <div className="button-row">
          <button type="submit" className="btn btn-primary" data-testid="account-email-submit" disabled={busy}>
            {t("account.email.submit")}
          </button>
        </div>
      </form>
    </section>
  );
}

/** Saves a file made in the browser. */
function saveFile(name: string, content: string, type: string): void {
  saveBlob(new Blob([content], { type }), name);
}

function BillingHistory({ rows, loading, error }: { rows?: PaymentRow[]; loading: boolean; error: unknown }) {
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

/** Saves the account's data as a JSON file (fetched with the session's token). */
async function downloadData(): Promise<void> {
  const data = await accountApi.export();
  saveFile(exportFileName(new Date()), JSON.stringify(data, null, 2), "application/json");
}

function DownloadButton({ testId, onDone }: { testId: string; onDone?: (ok: boolean, err?: unknown) => void }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-secondary"
      data-testid={testId}
      disabled={busy}
      aria-busy={busy}
      onClick={async () => {
        setBusy(true);
        try {
          await downloadData();
          onDone?.(true);
        } catch (err) {
          onDone?.(false, err);
        } finally {
          setBusy(false);
        }
      }}
    >
      {busy ? t("account.data.downloading") : t("account.data.download")}
    </button>
  );
}

function DataDownload() {
  const { t } = useTranslation();
  const [outcome, setOutcome] = useState<Outcome>(null);
  return (
    <section className="card account-card" aria-labelledby="account-data-title">
      <h2 id="account-data-title" className="section-title">
        {t("account.data.title")}
      </h2>
      <p>{t("account.data.body")}</p>
      <OutcomeBox outcome={outcome} testId="account-data-message" />
      <div className="button-row">
        <DownloadButton
          testId="account-download"
          onDone={(ok, err) =>
            setOutcome(
              ok
                ? { ok: true, message: t("account.data.ready") }
                : { ok: false, message: errorText(t, err), cause: err },
            )
          }
        />
      </div>
    </section>
  );
}

function DeleteAccount({ account }: { account: Account | null }) {
  const { t } = useTranslation();
  const lang = useLang();
  const { deleteAccount } = useAuth();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const paid = account && account.plan !== "free";

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!password) return setOutcome({ ok: false, message: t("validation.passwordRequired") });
    setBusy(true);
    setOutcome(null);
    try {
      await deleteAccount(password);
      queryClient.removeQueries({ queryKey: ["account"] });
      navigate(localePath(lang, ROUTES.login), {
        replace: true,
        state: { notice: "deleted", email: account?.email ?? "" },
      });
    } catch (err) {
      setBusy(false);
      const wrong = isApiError(err) && err.code === "PASSWORD_INCORRECT";
      setOutcome({ ok: false, message: errorText(t, err), cause: wrong ? undefined : err });
    }
  };

  return (
    <section className="card account-card account-danger" aria-labelledby="account-delete-title">
      <h2 id="account-delete-title" className="section-title">
        {t("account.delete.title")}
      </h2>
      <p>{t("account.delete.body")}</p>
      {account ? (
        <p data-testid="account-delete-plan">
          {paid ? t("account.delete.plan", { plan: t(`plan.names.${account.plan}`) }) : t("account.delete.free")}
        </p>
      ) : null}
      <div className="account-download-first">
        <p>{t("account.delete.downloadFirst")}</p>
        <DownloadButton testId="account-delete-download" />
      </div>
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <PasswordInput
          id="account-delete-password"
          label={t("account.delete.password")}
          value={password}
          onChange={setPassword}
          disabled={busy}
          autoComplete="current-password"
        />
        <OutcomeBox outcome={outcome} testId="account-delete-message" />
        <div className="button-row">
          <button type="submit" className="btn btn-danger" data-testid="account-delete-submit" disabled={busy}>
            {t("account.delete.submit")}
          </button>
        </div>
      </form>
    </section>
  );
}
