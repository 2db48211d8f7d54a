import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { isApiError } from "../api/errors.ts";
import { Agreement } from "../components/Agreement.tsx";
import { AuthCard } from "../components/AuthCard.tsx";
import { EmailField, SubmitButton, useEmailField } from "../components/AuthFields.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { authErrorText } from "../i18n/authErrors.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { useAuth } from "./AuthProvider.tsx";
import { authApi } from "./api.ts";

type Resend = { state: "idle" | "busy" | "sent" } | { state: "error"; message: string };

export function LoginPage() {
  const { t } = useTranslation();
  const lang = useLang();
  const navigate = useNavigate();
  const { login } = useAuth();
  usePageMeta("login");
  // After the account page deleted the account: say so here, where the user lands.
  const state = useLocation().state as { notice?: string; email?: string } | null;
  const deleted = state?.notice === "deleted";

  const emailField = useEmailField();
  const { email } = emailField;
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; cause?: unknown } | null>(null);
  const [unverified, setUnverified] = useState(false);
  const [resend, setResend] = useState<Resend>({ state: "idle" });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setUnverified(false);
    setResend({ state: "idle" });
    if (!emailField.check()) {
      setError(null);
      return;
    }
    if (!password) return setError({ message: t("validation.passwordRequired") });
    setError(null);
    setBusy(true);
    try {
      await login(email.trim(), password);
      navigate(localePath(lang, ROUTES.transcription), { replace: true });
    } catch (err) {
      if (isApiError(err) && err.code === "EMAIL_NOT_VERIFIED") {
        setUnverified(true);
        setError({ message: t("auth.login.notVerified") });
      } else {
        setError({ message: authErrorText(t, err, "auth.login.failed"), cause: err });
      }
    } finally {
      setBusy(false);
    }
  };

  const onResend = async () => {
    setResend({ state: "busy" });
    try {
      await authApi.resendVerification(email.trim(), lang);
      setResend({ state: "sent" });
    } catch (err) {
      setResend({ state: "error", message: errorText(t, err) });
    }
  };

  return (
    <AuthCard title={t("auth.login.title")} intro={t("auth.login.intro")}>
      {deleted ? (
        <p className="alert alert-success" role="status" data-testid="login-account-deleted">
          {t("account.delete.done", { email: state?.email ?? "" })}
        </p>
      ) : null}
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <EmailField id="login-email" {...emailField.field} disabled={busy} />
        <div className="field">
          <label htmlFor="login-password">{t("auth.password")}</label>
          <input
            id="login-password"
            data-testid="login-password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            disabled={busy}
          />
          {/* After the password in the DOM, so Tab goes e-mail → password → "Forgot your password?". */}
          <Link
            to={localePath(lang, ROUTES.passwordReset)}
            className="small-link field-after-link"
            data-testid="login-forgot-password"
          >
            {t("auth.login.forgotPassword")}
          </Link>
        </div>
        {error ? <ErrorAlert message={error.message} error={error.cause} testId="login-error" /> : null}
        {unverified ? (
          <div className="resend">
            <button
              type="button"
              className="btn btn-secondary"
              data-testid="resend-verification"
              onClick={onResend}
              disabled={resend.state === "busy" || resend.state === "sent"}
              aria-busy={resend.state === "busy"}
            >
              {resend.state === "busy" ? t("auth.login.resending") : t("auth.login.resend")}
            </button>
            {resend.state === "sent" ? (
              <p className="alert alert-success" role="status">
                {t("auth.login.resent")}
              </p>
            ) : null}
            {resend.state === "error" ? <ErrorAlert message={resend.message} /> : null}
          </div>
        ) : null}
        <SubmitButton
          testId="login-submit"
          busy={busy}
          label={t("auth.login.submit")}
          busyLabel={t("auth.login.submitting")}
        />
        <Agreement kind="login" />
      </form>
      <p className="card-footer">
        {t("auth.login.noAccount")} <Link to={localePath(lang, ROUTES.register)}>{t("auth.login.registerLink")}</Link>
      </p>
    </AuthCard>
  );
}
