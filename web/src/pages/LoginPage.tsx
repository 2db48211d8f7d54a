import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { isApiError } from "../api/errors.ts";
import { useAuth } from "../auth/AuthProvider.tsx";
import { authApi } from "../auth/api.ts";
import { Agreement } from "../components/Agreement.tsx";
import { AuthCard } from "../components/AuthCard.tsx";
import { EmailField, SubmitButton } from "../components/AuthFields.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { authErrorText } from "../i18n/authErrors.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

type Resend = { state: "idle" | "busy" | "sent" } | { state: "error"; message: string };

export function LoginPage() {
  const { t } = useTranslation();
  const lang = useLang();
  const navigate = useNavigate();
  const { login } = useAuth();
  usePageMeta("login");

  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; cause?: unknown } | null>(null);
  const [unverified, setUnverified] = useState(false);
  const [resend, setResend] = useState<Resend>({ state: "idle" });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setUnverified(false);
    setResend({ state: "idle" });
    if (!email.trim()) return setError({ message: t("validation.emailRequired") });
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
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <EmailField id="login-email" value={email} onChange={setEmail} disabled={busy} />
        <div className="field">
          <div className="field-label-row">
            <label htmlFor="login-password">{t("auth.password")}</label>
            <Link to={localePath(lang, ROUTES.passwordReset)} className="small-link">
              {t("auth.login.forgotPassword")}
            </Link>
          </div>
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
