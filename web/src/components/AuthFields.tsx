import { type Ref, useCallback, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { emailProblem, emailProblemKey } from "../auth/validate.ts";

/**
 * The e-mail field of the account forms; `id` is also its test id. `error` is what is wrong with the
 * field: shown under it (test id `{id}-error`), announced, and tied to the input with aria-invalid.
 */
export function EmailField({
  id,
  value,
  onChange,
  disabled,
  error,
  label,
  inputRef,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
  error?: string | null;
  label?: string;
  inputRef?: Ref<HTMLInputElement>;
}) {
  const { t } = useTranslation();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label ?? t("auth.email")}</label>
      <input
        ref={inputRef}
        id={id}
        data-testid={id}
        type="email"
        autoComplete="email"
        inputMode="email"
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
      />
      {error ? (
        <p id={errorId} className="field-error" data-testid={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The full-width submit button of the account forms, with its busy label while the call runs. */
export function SubmitButton({
  testId,
  busy,
  label,
  busyLabel,
}: {
  testId: string;
  busy: boolean;
  label: string;
  busyLabel: string;
}) {
  return (
    <button type="submit" className="btn btn-primary btn-block" data-testid={testId} disabled={busy} aria-busy={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}

/**
 * The state of one e-mail field: its value, what is wrong with it (shown at the field), and its input
 * for focus. `check()` validates the address, says what is wrong at the field and focuses it (false),
 * or clears the error (true); `fail(message)` shows a server's verdict the same way. Typing clears
 * the error. Spread `field` onto EmailField.
 */
export function useEmailField() {
  const { t } = useTranslation();
  const [email, setEmail] = useState("");
  const [error, setError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  // Stable, so an effect may depend on it.
  const focus = useCallback(() => inputRef.current?.focus(), []);
  const fail = (message: string) => {
    setError(message);
    focus();
  };
  const check = (): boolean => {
    const problem = emailProblem(email);
    if (!problem) {
      setError(null);
      return true;
    }
    fail(t(emailProblemKey(problem)));
    return false;
  };
  return {
    email,
    check,
    fail,
    focus,
    clearError: () => setError(null),
    field: {
      value: email,
      onChange: (value: string) => {
        setEmail(value);
        if (error) setError(null);
      },
      error,
      inputRef,
    },
  };
}
