import { PASSWORD_MIN } from "@kikitori/shared";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { isApiError } from "../api/errors.ts";
import { AuthCard } from "../components/AuthCard.tsx";
import { SubmitButton } from "../components/AuthFields.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { authApi } from "./api.ts";

const LINK_ERRORS = new Set(["INVALID_TOKEN", "TOKEN_USED", "EMAIL_TOKEN_EXPIRED"]);

type Outcome = { ok: true } | { ok: false; message: string; cause?: unknown; badLink?: boolean } | null;

/**
 * The link is checked before the form is shown: a used, expired or unknown link says so at once
 * (through `setOutcome`). The check itself failing lets the user try (submitting checks again).
 */
function useResetLinkCheck(token: string, setOutcome: (outcome: Outcome) => void) {
  const { t } = useTranslation();
  const [link, setLink] = useState<"checking" | "usable" | "bad">(token ? "checking" : "bad");

  useEffect(() => {
    if (!token) return;
    const ctrl = new AbortController();
    authApi.checkPasswordReset(token, ctrl.signal).then(
      () => setLink("usable"),
      (err: unknown) => {
        if (ctrl.signal.aborted) return;
        if (isApiError(err) && LINK_ERRORS.has(err.code)) {
          setLink("bad");
          setOutcome({ ok: false, message: errorText(t, err), cause: err, badLink: true });
        } else {
          // The check itself failed (network, server): let the user try; submitting checks again.
          setLink("usable");
        }
      },
    );
    return () => ctrl.abort();
  }, [token, t, setOutcome]);
  return [link, setLink] as const;
}

/** The new password is set: on to logging in. */
function ResetDone() {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <AuthCard title={t("auth.resetConfirm.title")}>
      <div className="alert alert-success" role="status" data-testid="reset-confirm-message">
        {t("auth.resetConfirm.success")}
      </div>
      <Link to={localePath(lang, ROUTES.login)} className="btn btn-primary btn-block">
        {t("auth.resetConfirm.goToLogin")}
      </Link>
    </AuthCard>
  );
}

/** While the link is being checked. */
function ResetChecking() {
  const { t } = useTranslation();
  return (
    <AuthCard title={t("auth.resetConfirm.title")}>
      <p className="status-line" role="status" data-testid="reset-confirm-checking">
        <span className="spinner" aria-hidden="true" />
        {t("app.loading")}
      </p>
    </AuthCard>
  );
}

/** A used, expired or unknown link: why, and asking for a new one. */
function ResetBadLink({ outcome }: { outcome: Outcome }) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <AuthCard title={t("auth.resetConfirm.title")}>
      <ErrorAlert
        message={outcome && !outcome.ok ? outcome.message : t("errors.INVALID_TOKEN")}
        error={outcome && !outcome.ok ? outcome.cause : undefined}
        testId="reset-confirm-message"
      />
      <Link
        to={localePath(lang, ROUTES.passwordReset)}
        className="btn btn-primary btn-block"
        data-testid="reset-confirm-request-new"
      >
        {t("auth.resetConfirm.requestNew")}
      </Link>
      <p className="card-footer">
        <Link to={localePath(lang, ROUTES.login)}>{t("auth.reset.backToLogin")}</Link>
      </p>
    </AuthCard>
  );
}

export function PasswordResetConfirmPage() {
  const { t } = useTranslation();
  const lang = useLang();
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  usePageMeta("passwordResetConfirm");

  const [password, setPassword] = useState("");
  const [password2, setPassword2] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(
    token ? null : { ok: false, message: t("errors.INVALID_TOKEN"), badLink: true },
  );

  const [link, setLink] = useResetLinkCheck(token, setOutcome);

  const fail = (message: string) => setOutcome({ ok: false, message });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!token) return setOutcome({ ok: false, message: t("errors.INVALID_TOKEN"), badLink: true });
    if (!password) return fail(t("validation.passwordRequired"));
    if (password.length < PASSWORD_MIN) return fail(t("validation.passwordTooShort", { min: PASSWORD_MIN }));
    if (password !== password2) return fail(t("auth.resetConfirm.mismatch"));
    setOutcome(null);
    setBusy(true);
    try {
      await authApi.confirmPasswordReset(token, password);
      setOutcome({ ok: true });
    } catch (err) {
      const badLink = isApiError(err) && LINK_ERRORS.has(err.code);
      if (badLink) setLink("bad");
      setOutcome({ ok: false, message: errorText(t, err), cause: err, badLink });
    } finally {
      setBusy(false);
    }
  };

  if (outcome?.ok) return <ResetDone />;

  if (link === "checking") return <ResetChecking />;

  if (link === "bad") return <ResetBadLink outcome={outcome} />;

  return (
    <AuthCard title={t("auth.resetConfirm.title")}>
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <div className="field">
          <label htmlFor="reset-confirm-password">{t("auth.resetConfirm.password")}</label>
          <input
            id="reset-confirm-password"
            data-testid="reset-confirm-password"
            type="password"
            autoComplete="new-password"
            required
            minLength={PASSWORD_MIN}
            aria-describedby="reset-confirm-hint"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            disabled={busy}
          />
          <p id="reset-confirm-hint" className="hint">
            {t("auth.register.passwordHint", { min: PASSWORD_MIN })}
          </p>
        </div>
        <div className="field">
          <label htmlFor="reset-confirm-password2">{t("auth.resetConfirm.password2")}</label>
          <input
            id="reset-confirm-password2"
            data-testid="reset-confirm-password2"
            type="password"
            autoComplete="new-password"
            required
            value={password2}
            onChange={(e) => setPassword2(e.target.value)}
            disabled={busy}
          />
        </div>
        {outcome && !outcome.ok ? (
          <ErrorAlert message={outcome.message} error={outcome.cause} testId="reset-confirm-message" />
        ) : null}
        <SubmitButton
          testId="reset-confirm-submit"
          busy={busy}
          label={t("auth.resetConfirm.submit")}
          busyLabel={t("auth.resetConfirm.submitting")}
        />
      </form>
      <p className="card-footer">
        {outcome && !outcome.ok && outcome.badLink ? (
          <Link to={localePath(lang, ROUTES.passwordReset)}>{t("auth.resetConfirm.requestNew")}</Link>
        ) : (
          <Link to={localePath(lang, ROUTES.login)}>{t("auth.reset.backToLogin")}</Link>
        )}
      </p>
    </AuthCard>
  );
}
