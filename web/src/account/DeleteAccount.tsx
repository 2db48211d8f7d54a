import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { isApiError } from "../api/errors.ts";
import { useAuth } from "../auth/AuthProvider.tsx";
import type { Account } from "../auth/accountApi.ts";
import { errorText } from "../i18n/errorText.ts";
import { isPaidPlan } from "../plan/pricing.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { type Outcome, OutcomeBox, PasswordInput } from "./accountForms.tsx";
import { DownloadButton } from "./DataDownload.tsx";

/** Deletes the account after checking the password (a paid plan ends with it), then goes to login. */
export function DeleteAccount({ account }: { account: Account | null }) {
  const { t } = useTranslation();
  const lang = useLang();
  const { deleteAccount } = useAuth();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const paid = account && isPaidPlan(account.plan);

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
