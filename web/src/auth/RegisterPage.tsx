import { PASSWORD_MIN } from "@kikitori/shared";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { isApiError } from "../api/errors.ts";
import { Agreement } from "../components/Agreement.tsx";
import { AuthCard } from "../components/AuthCard.tsx";
import { EmailField, SubmitButton, useEmailField } from "../components/AuthFields.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { authErrorText } from "../i18n/authErrors.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { authApi } from "./api.ts";

/** Spec: about 3 seconds after a successful registration the user goes to login. */
export const REGISTER_REDIRECT_MS = 3_000;

export function RegisterPage() {
  const { t } = useTranslation();
  const lang = useLang();
  const navigate = useNavigate();
  usePageMeta("register");

  const emailField = useEmailField();
  const { email } = emailField;
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; cause?: unknown } | null>(null);
  const [done, setDone] = useState(false);

  useEffect(() => {
    if (!done) return;
    const id = setTimeout(() => navigate(localePath(lang, ROUTES.login)), REGISTER_REDIRECT_MS);
    return () => clearTimeout(id);
  }, [done, lang, navigate]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!emailField.check()) {
      setError(null);
      return;
    }
    if (!password) return setError({ message: t("validation.passwordRequired") });
    if (password.length < PASSWORD_MIN) {
      return setError({ message: t("validation.passwordTooShort", { min: PASSWORD_MIN }) });
    }
    setError(null);
    setBusy(true);
    try {
      await authApi.register(email.trim(), password, lang);
      setDone(true);
    } catch (err) {
      // The server's own check of the address (it is stricter than no check at all): say so at the field.
      if (isApiError(err) && err.code === "VALIDATION_FAILED" && /email/i.test(err.message)) {
        emailField.fail(t("validation.emailInvalid"));
        return;
      }
      setError({
        message: authErrorText(t, err, "auth.register.failed", ["EMAIL_ALREADY_IN_USE", "WEAK_PASSWORD"]),
        cause: err,
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard title={t("auth.register.title")} intro={done ? undefined : t("auth.register.intro")}>
      {done ? (
        <div className="alert alert-success" role="status" data-testid="register-success">
          {t("auth.register.success")}
        </div>
      ) : (
        <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
          <EmailField id="register-email" {...emailField.field} disabled={busy} />
          <div className="field">
            <label htmlFor="register-password">{t("auth.password")}</label>
            <input
              id="register-password"
              data-testid="register-password"
              type="password"
              autoComplete="new-password"
              required
              minLength={PASSWORD_MIN}
              aria-describedby="register-password-hint"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              disabled={busy}
            />
            <p id="register-password-hint" className="hint">
              {t("auth.register.passwordHint", { min: PASSWORD_MIN })}
            </p>
          </div>
          {error ? <ErrorAlert message={error.message} error={error.cause} testId="register-error" /> : null}
          <SubmitButton
            testId="register-submit"
            busy={busy}
            label={t("auth.register.submit")}
            busyLabel={t("auth.register.submitting")}
          />
          <Agreement kind="register" />
        </form>
      )}
      <p className="card-footer">
        {t("auth.register.haveAccount")} <Link to={localePath(lang, ROUTES.login)}>{t("auth.register.loginLink")}</Link>
      </p>
    </AuthCard>
  );
}
