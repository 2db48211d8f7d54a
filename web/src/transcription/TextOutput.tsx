import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { copyToClipboard } from "../lib/clipboard.ts";

type CopyState = "idle" | "copied" | "failed";

/** A read-only text output with its heading and copy button. */
export function TextOutput({
  title,
  text,
  waiting,
  testId,
  copyTestId,
  copyLabel,
  renderPending,
  renderText,
  children,
}: {
  title: string;
  text: string | null;
  waiting: string;
  /** What stands in for the text until it is there (default: the `waiting` line); gets the heading's id. */
  renderPending?: (headingId: string) => ReactNode;
  /** What shows the text once it is there (default: a read-only text field); gets the heading's id. */
  renderText?: (headingId: string) => ReactNode;
  testId: string;
  copyTestId: string;
  copyLabel: string;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [copy, setCopy] = useState<CopyState>("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  // A different text (another job) drops the old notice.
  // biome-ignore lint/correctness/useExhaustiveDependencies: resets on text change on purpose
  useEffect(() => setCopy("idle"), [text]);

  const onCopy = async () => {
    if (text === null) return;
    const ok = await copyToClipboard(text);
    setCopy(ok ? "copied" : "failed");
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopy("idle"), 2500);
  };

  return (
    <div className="tx-output">
      <div className="tx-output-head">
        <h3 id={id}>{title}</h3>
        <div className="tx-copy">
          <span className={copy === "failed" ? "tx-copy-note failed" : "tx-copy-note"} role="status">
            {copy === "copied" ? t("transcription.copied") : copy === "failed" ? t("transcription.copyFailed") : ""}
          </span>
          <button
            type="button"
            className="btn btn-secondary btn-small"
            data-testid={copyTestId}
            onClick={onCopy}
            disabled={text === null}
            aria-label={copyLabel}
          >
            <CopyIcon />
            {t("transcription.copy")}
          </button>
        </div>
      </div>
      {text === null ? (
        (renderPending?.(id) ?? <p className="tx-waiting muted">{waiting}</p>)
      ) : renderText ? (
        renderText(id)
      ) : (
        // The text in its own direction (an English transcript stays left-to-right in the Arabic interface).
        <textarea
          className="tx-text"
          data-testid={testId}
          readOnly
          value={text}
          aria-labelledby={id}
          rows={8}
          dir="auto"
        />
      )}
      {children}
    </div>
  );
}

function CopyIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" aria-hidden="true" focusable="false">
      <rect x="9" y="9" width="11" height="11" rx="2" stroke="currentColor" strokeWidth="2" />
      <path d="M5 15V6a2 2 0 0 1 2-2h9" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}
