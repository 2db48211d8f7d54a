import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Link, Navigate } from "react-router";
import { useAuth } from "../auth/AuthProvider.tsx";
import { type Account, accountApi } from "../auth/accountApi.ts";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { formatDate } from "../plan/format.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { BillingHistory } from "./BillingHistory.tsx";
import { CardOnFile } from "./CardOnFile.tsx";
import { ChangeEmail } from "./ChangeEmail.tsx";
import { ChangePassword } from "./ChangePassword.tsx";
import { DataDownload } from "./DataDownload.tsx";
import { DeleteAccount } from "./DeleteAccount.tsx";
import { Glossary } from "./Glossary.tsx";

/**
 * The account page (issue 16, points 3 and 4): who is logged in, password and e-mail changes, billing
 * history, a download of one's data, and deleting the account with the password. The sections live
 * in web/src/account/.
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
        <Glossary />
        <CardOnFile uid={uid} />
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
