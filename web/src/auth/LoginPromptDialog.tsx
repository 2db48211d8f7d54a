import { PASSWORD_MIN } from "@kikitori/shared";
import type { TFunction } from "i18next";
import {
  createContext,
  type FormEvent,
  type ReactNode,
  type RefObject,
  useCallback,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { isApiError } from "../api/errors.ts";
import { EmailField, useEmailField } from "../components/AuthFields.tsx";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { trapTab } from "../components/focusTrap.ts";
import { authErrorText } from "../i18n/authErrors.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { useAuth } from "./AuthProvider.tsx";
import { authApi } from "./api.ts";

type Open = () => void;
const PromptContext = createContext<Open | null>(null);

/**
 * Hosts the in-page "log in or register" dialog the tools open for a visitor. The page under it stays
 * mounted, so the chosen file and everything typed into the form are still there after logging in.
 */
export function LoginPromptProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLElement | null>(null);
  const show = useCallback(() => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setOpen(true);
  }, []);
  const close = useCallback(() => {
    setOpen(false);
    // Back to where the user was (the button they pressed), so they can press it again.
    const el = opener.current;
    if (el) requestAnimationFrame(() => el.focus());
  }, []);
  return (
    <PromptContext.Provider value={show}>
      {children}
      {open ? <LoginPromptDialog onClose={close} /> : null}
    </PromptContext.Provider>
  );
}

/** A tool used while logged out: opens the in-page login/register dialog. */
export function useLoginPrompt(): Open {
  const open = useContext(PromptContext);
  if (!open) throw new Error("useLoginPrompt outside LoginPromptProvider");
  return open;
}

type Mode = "login" | "register";

/** Opens the dialog as a modal (then focuses its first field) and closes it when it goes away. */
function useModalDialog(ref: RefObject<HTMLDialogElement | null>, focusFirst: () => void) {
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) {
      if (typeof dialog.showModal === "function") dialog.showModal();
      else dialog.setAttribute("open", "");
    }
    focusFirst();
    return () => dialog?.close();
  }, [ref, focusFirst]);
}

/** What a failed login or registration in the dialog says. */
function promptError(t: TFunction, mode: Mode, err: unknown): { message: string; cause?: unknown } {
  if (mode === "login" && isApiError(err) && err.code === "EMAIL_NOT_VERIFIED") {
    return { message: t("auth.login.notVerified") };
  }
  if (mode === "login") return { message: authErrorText(t, err, "auth.login.failed"), cause: err };
  return {
    message: authErrorText(t, err, "auth.register.failed", ["EMAIL_ALREADY_IN_USE", "WEAK_PASSWORD"]),
    cause: err,
  };
}

/** The dialog's password: a new one's rule when registering, else the forgotten-password link. */
function PromptPasswordField({
  id,
  mode,
  value,
  onChange,
  disabled,
}: {
  id: string;
  mode: Mode;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <div className="field">
      <label htmlFor={id}>{t("auth.password")}</label>
      <input
        id={id}
        data-testid="login-prompt-password"
        type="password"
        autoComplete={mode === "login" ? "current-password" : "new-password"}
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
      />
      {mode === "register" ? (
        <p className="hint">{t("auth.register.passwordHint", { min: PASSWORD_MIN })}</p>
      ) : (
        // Opens in a new tab, so this page (and the chosen file) stays as it is.
        <Link
          to={localePath(lang, ROUTES.passwordReset)}
          target="_blank"
          rel="noopener"
          className="small-link field-after-link"
        >
          {t("auth.login.forgotPassword")}
        </Link>
      )}
    </div>
  );
}

/** Cancel, and log in or register. */
function PromptActions({ mode, busy, onCancel }: { mode: Mode; busy: boolean; onCancel: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="login-prompt-actions">
      <button type="button" className="btn btn-secondary" data-testid="login-prompt-cancel" onClick={onCancel}>
        {t("auth.prompt.cancel")}
      </button>
      <button
        type="submit"
        className="btn btn-primary"
        data-testid="login-prompt-submit"
        disabled={busy}
        aria-busy={busy}
      >
        {mode === "login"
          ? busy
            ? t("auth.login.submitting")
            : t("auth.login.submit")
          : busy
            ? t("auth.register.submitting")
            : t("auth.register.submit")}
      </button>
    </div>
  );
}

function LoginPromptDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const lang = useLang();
  const { login } = useAuth();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const introId = useId();
  const [mode, setMode] = useState<Mode>("login");
  const emailField = useEmailField();
  const { email, focus: focusEmail } = emailField;
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; cause?: unknown } | null>(null);
  const [registered, setRegistered] = useState(false);

  useModalDialog(ref, focusEmail);

  const switchMode = (next: Mode) => {
    setMode(next);
    setError(null);
    emailField.clearError();
    setRegistered(false);
    emailField.focus();
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!emailField.check()) {
      setError(null);
      return;
    }
    if (!password) return setError({ message: t("validation.passwordRequired") });
    if (mode === "register" && password.length < PASSWORD_MIN) {
      return setError({ message: t("validation.passwordTooShort", { min: PASSWORD_MIN }) });
    }
    setError(null);
    setBusy(true);
    try {
      if (mode === "login") {
        await login(email.trim(), password);
        onClose();
        return;
      }
      await authApi.register(email.trim(), password, lang);
      setRegistered(true);
      setMode("login");
      setPassword("");
    } catch (err) {
      setError(promptError(t, mode, err));
    } finally {
      setBusy(false);
    }
  };

  const passwordId = `login-prompt-password-${mode}`;
  return (
    <dialog
      ref={ref}
      className="login-prompt"
      data-testid="login-prompt"
      data-mode={mode}
      aria-labelledby={titleId}
      aria-describedby={introId}
      onKeyDown={(e) => {
        if (ref.current) trapTab(ref.current, e);
      }}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{t(mode === "login" ? "auth.prompt.title" : "auth.register.title")}</h2>
      <p id={introId} className="muted">
        {t("auth.prompt.intro")}
      </p>
      {registered ? (
        <p className="alert alert-success" role="status" data-testid="login-prompt-registered">
          {t("auth.prompt.registered")}
        </p>
      ) : null}
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <EmailField id="login-prompt-email" {...emailField.field} disabled={busy} />
        <PromptPasswordField id={passwordId} mode={mode} value={password} onChange={setPassword} disabled={busy} />
        {error ? <ErrorAlert message={error.message} error={error.cause} testId="login-prompt-error" /> : null}
        <PromptActions mode={mode} busy={busy} onCancel={onClose} />
      </form>
      <p className="card-footer">
        {mode === "login" ? t("auth.login.noAccount") : t("auth.register.haveAccount")}{" "}
        <button
          type="button"
          className="link-button"
          data-testid="login-prompt-switch"
          onClick={() => switchMode(mode === "login" ? "register" : "login")}
        >
          {mode === "login" ? t("auth.login.registerLink") : t("auth.register.loginLink")}
        </button>
      </p>
    </dialog>
  );
}
