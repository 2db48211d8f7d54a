import { useTranslation } from "react-i18next";

/** The e-mail field of the account forms; `id` is also its test id. */
export function EmailField({
  id,
  value,
  onChange,
  disabled,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  return (
    <div className="field">
      <label htmlFor={id}>{t("auth.email")}</label>
      <input
        id={id}
        data-testid={id}
        type="email"
        autoComplete="email"
        inputMode="email"
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
      />
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
