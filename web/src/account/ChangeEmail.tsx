import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { accountApi } from "../auth/accountApi.ts";
import { EmailField, useEmailField } from "../components/AuthFields.tsx";
import { errorText } from "../i18n/errorText.ts";
import { useLang } from "../routing/useLang.ts";
import { type Outcome, OutcomeBox, PasswordInput } from "./accountForms.tsx";

/** Asks to change the e-mail: a confirmation link goes to the new address. */
export function ChangeEmail({ current }: { current: string }) {
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
