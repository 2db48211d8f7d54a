import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { AuthCard } from "../components/AuthCard.tsx";
import { EmailField, SubmitButton } from "../components/AuthFields.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { authErrorText } from "../i18n/authErrors.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { authApi } from "./api.ts";

type Outcome = { ok: true } | { ok: false; message: string; cause?: unknown } | null;

export function PasswordResetPage() {
  const { t } = useTranslation();
  const lang = useLang();
  usePageMeta("passwordReset");

  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim()) return setOutcome({ ok: false, message: t("validation.emailRequired") });
    setOutcome(null);
    setBusy(true);
    try {
      await authApi.requestPasswordReset(email.trim(), lang);
      setOutcome({ ok: true });
    } catch (err) {
      setOutcome({ ok: false, message: authErrorText(t, err, "auth.reset.failed"), cause: err });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard title={t("auth.reset.title")} intro={t("auth.reset.intro")}>
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <EmailField id="reset-email" value={email} onChange={setEmail} disabled={busy} />
        {outcome?.ok ? (
          <div className="alert alert-success" role="status" data-testid="reset-message">
            {t("auth.reset.success")}
          </div>
        ) : null}
        {outcome && !outcome.ok ? (
          <ErrorAlert message={outcome.message} error={outcome.cause} testId="reset-message" />
        ) : null}
        <SubmitButton
          testId="reset-submit"
          busy={busy}
          label={t("auth.reset.submit")}
          busyLabel={t("auth.reset.submitting")}
        />
      </form>
      <p className="card-footer">
        <Link to={localePath(lang, ROUTES.login)}>{t("auth.reset.backToLogin")}</Link>
      </p>
    </AuthCard>
  );
}
