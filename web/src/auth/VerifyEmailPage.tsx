import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { ApiError, isApiError } from "../api/errors.ts";
import { AuthCard } from "../components/AuthCard.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { useAuth } from "./AuthProvider.tsx";
import { accountApi } from "./accountApi.ts";
import { authApi } from "./api.ts";

/** A verification's answer: the registration's, or the e-mail change's (with the new address). */
type VerifyAnswer =
  | Awaited<ReturnType<typeof authApi.verifyEmail>>
  | Awaited<ReturnType<typeof accountApi.confirmEmailChange>>;

/**
 * One request per token for the page's lifetime: StrictMode mounts effects twice, and a verification
 * token is single-use, so a second POST would turn a success into TOKEN_USED.
 */
const requests = new Map<string, Promise<VerifyAnswer>>();

function verifyOnce(token: string, emailChange: boolean): Promise<VerifyAnswer> {
  let p = requests.get(token);
  if (!p) {
    p = emailChange ? accountApi.confirmEmailChange(token) : authApi.verifyEmail(token);
    requests.set(token, p);
  }
  return p;
}

type State =
  | { status: "verifying" }
  | { status: "success" }
  | { status: "already" }
  | { status: "error"; error: unknown };

/**
 * A verification link is only ever used up by verifying its address, so a used link (clicked twice,
 * opened in a second tab) means the address is already verified: say so and offer login.
 */
export function verifyOutcome(error: unknown): State {
  return isApiError(error) && error.code === "TOKEN_USED" ? { status: "already" } : { status: "error", error };
}

export function VerifyEmailPage() {
  const { t } = useTranslation();
  const lang = useLang();
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  /** A link from the account page's e-mail change (sent to the new address) rather than a registration. */
  const emailChange = params.get("kind") === "email-change";
  const { user, forget } = useAuth();
  const [newEmail, setNewEmail] = useState("");
  usePageMeta("verifyEmail");

  const [state, setState] = useState<State>(
    token ? { status: "verifying" } : { status: "error", error: new ApiError("INVALID_TOKEN", 400, "Missing token") },
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: one request per link; user/forget must not re-run it
  useEffect(() => {
    if (!token) return;
    let active = true;
    setState({ status: "verifying" });
    verifyOnce(token, emailChange).then(
      (res) => {
        if (!active) return;
        if (emailChange) {
          // The change ended every login (the old address is in their tokens): log in again with the new one.
          setNewEmail("email" in res ? res.email : "");
          if (user) forget();
        }
        setState({ status: "success" });
      },
      (error: unknown) => active && setState(verifyOutcome(error)),
    );
    return () => {
      active = false;
    };
  }, [token, emailChange]);

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
          {emailChange ? t("account.email.changed", { email: newEmail }) : t("auth.verify.success")}
        </div>
      ) : null}
      {state.status === "already" ? (
        <div className="alert alert-info" role="status" data-testid="verify-status" data-status="already">
          {emailChange ? t("account.email.alreadyChanged") : t("auth.verify.already")}
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
