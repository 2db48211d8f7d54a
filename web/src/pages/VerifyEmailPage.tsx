import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { ApiError } from "../api/errors.ts";
import { authApi } from "../auth/api.ts";
import { AuthCard } from "../components/AuthCard.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

/**
 * One request per token for the page's lifetime: StrictMode mounts effects twice, and a verification
 * token is single-use, so a second POST would turn a success into TOKEN_USED.
 */
const requests = new Map<string, Promise<unknown>>();

function verifyOnce(token: string): Promise<unknown> {
  let p = requests.get(token);
  if (!p) {
    p = authApi.verifyEmail(token);
    requests.set(token, p);
  }
  return p;
}

type State = { status: "verifying" } | { status: "success" } | { status: "error"; error: unknown };

export function VerifyEmailPage() {
  const { t } = useTranslation();
  const lang = useLang();
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  usePageMeta("verifyEmail");

  const [state, setState] = useState<State>(
    token ? { status: "verifying" } : { status: "error", error: new ApiError("INVALID_TOKEN", 400, "Missing token") },
  );

  useEffect(() => {
    if (!token) return;
    let active = true;
    setState({ status: "verifying" });
    verifyOnce(token).then(
      () => active && setState({ status: "success" }),
      (error: unknown) => active && setState({ status: "error", error }),
    );
    return () => {
      active = false;
    };
  }, [token]);

  return (
    <AuthCard title={t("auth.verify.title")}>
      {state.status === "verifying" ? (
        <p className="status-line" role="status" aria-live="polite" data-testid="verify-status" data-status="verifying">
          <span className="spinner" aria-hidden="true" />
          {t("auth.verify.verifying")}
        </p>
      ) : null}
      {state.status === "success" ? (
        <div className="alert alert-success" role="status" data-testid="verify-status" data-status="success">
          {t("auth.verify.success")}
        </div>
      ) : null}
      {state.status === "error" ? (
        <div data-testid="verify-status" data-status="error">
          <ErrorAlert message={errorText(t, state.error)} error={state.error} />
        </div>
      ) : null}
      {state.status !== "verifying" ? (
        <Link to={localePath(lang, ROUTES.login)} className="btn btn-primary btn-block">
          {t("auth.verify.goToLogin")}
        </Link>
      ) : null}
    </AuthCard>
  );
}
