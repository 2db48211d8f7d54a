/** What the account page's forms share: the outcome of a submit, a password field, saving a file. */
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { saveBlob } from "../lib/download.ts";

/** What a form of the account page shows after a submit. */
export type Outcome = { ok: true; message: string } | { ok: false; message: string; cause?: unknown } | null;

export function OutcomeBox({ outcome, testId }: { outcome: Outcome; testId: string }) {
  if (!outcome) return null;
  return outcome.ok ? (
    <p className="alert alert-success" role="status" data-testid={testId}>
      {outcome.message}
    </p>
  ) : (
    <ErrorAlert message={outcome.message} error={outcome.cause} testId={testId} />
  );
}

export function PasswordInput({
  id,
  label,
  value,
  onChange,
  disabled,
  autoComplete,
  hint,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  disabled: boolean;
  autoComplete: "current-password" | "new-password";
  hint?: string;
}) {
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        data-testid={id}
        type="password"
        autoComplete={autoComplete}
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
        aria-describedby={hint ? hintId : undefined}
      />
      {hint ? (
        <p id={hintId} className="hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** Saves a file made in the browser. */
export function saveFile(name: string, content: string, type: string): void {
  saveBlob(new Blob([content], { type }), name);
}
