import { PASSWORD_MIN } from "@kikitori/shared";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { useAuth } from "../auth/AuthProvider.tsx";
import { accountApi } from "../auth/accountApi.ts";
import { errorText } from "../i18n/errorText.ts";
import { type Outcome, OutcomeBox, PasswordInput } from "./accountForms.tsx";

/** Changes the password (the current one is required); the answer is this login's new session. */
export function ChangePassword() {
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
