import {
  charCount,
  checkSummaryRequest,
  phrasesMissingFrom,
  SUMMARY_LENGTH_MAX,
  SUMMARY_LENGTH_MIN,
} from "@kikitori/shared";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { useReveal } from "../components/useReveal.ts";
import { formatAmount } from "../plan/format.ts";
import { useLang } from "../routing/useLang.ts";
import { summarize } from "./api.ts";
import { intOf, nextSummaryProgress, progressTone, suggestedSummaryLength, textFromNavigation } from "./logic.ts";
import { PhraseFields } from "./PhraseFields.tsx";
import { SummaryResult } from "./SummaryResult.tsx";
import { useTextTool } from "./useTextTool.ts";
import "./text-tools.css";

/** The summary's progress, 0 to 100: while waiting, it rises 1 per second up to 98. */
function useSummaryProgress(busy: boolean) {
  const [progress, setProgress] = useState(0);
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => setProgress(nextSummaryProgress), 1000);
    return () => clearInterval(timer);
  }, [busy]);
  return [progress, setProgress] as const;
}

/** The length asked for, in characters, with its bounds. */
function SummaryLengthField({
  value,
  onChange,
  disabled,
}: {
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const n = (v: number) => formatAmount(v, lang);
  return (
    <div className="field tt-short-input">
      <label htmlFor="summary-length">{t("summary.lengthLabel")}</label>
      <input
        id="summary-length"
        data-testid="summary-length"
        type="number"
        inputMode="numeric"
        min={SUMMARY_LENGTH_MIN}
        max={SUMMARY_LENGTH_MAX}
        step={1}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
      />
      <p className="hint">{t("summary.lengthHint", { min: n(SUMMARY_LENGTH_MIN), max: n(SUMMARY_LENGTH_MAX) })}</p>
    </div>
  );
}

/** The bar while the summary is generated, and once it is done. */
function SummaryProgress({
  status,
  busy,
  progress,
}: {
  status: Parameters<typeof progressTone>[0];
  busy: boolean;
  progress: number;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const n = (v: number) => formatAmount(v, lang);
  return (
    <div className="tt-progress-block">
      <div className="tt-progress-head">
        <span>
          {busy ? <span className="spinner" aria-hidden="true" /> : null}
          {busy ? t("summary.progressLabel") : t("messages.processCompleted")}
        </span>
        <span>{n(progress)}%</span>
      </div>
      <div
        className={`tt-progress tt-progress-${progressTone(status)}`}
        data-testid="summary-progress"
        data-tone={progressTone(status)}
        data-value={progress}
        role="progressbar"
        aria-label={t("summary.progressLabel")}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={progress}
      >
        <div className="tt-progress-fill" style={{ inlineSize: `${progress}%` }} />
      </div>
    </div>
  );
}

/** The summary screen: text, desired length, required phrases (rules: checkSummaryRequest), progress, copy. */
export function SummaryPage() {
  const { t } = useTranslation();
  const { busy, error, copied, run, copy, lang } = useTextTool("messages.summaryFailed", "Summary failed");
  usePageMeta("summary");

  // "Summarise this interview" / "Titles for this interview" arrive with the interview text.
  const navState = useLocation().state;
  const [text, setText] = useState(() => textFromNavigation(navState));
  // The length follows the text (about a third of it) until the user types one: then it is theirs.
  const [typedLength, setLength] = useState<string | null>(null);
  const length = typedLength ?? String(suggestedSummaryLength(charCount(text)));
  const [phrases, setPhrases] = useState<string[]>(["", ""]);
  /** The last summary; null before the first one and while a new one is generated. */
  const [summary, setSummary] = useState<string | null>(null);
  /** Required phrases the text did not contain: the summary had to bring them in, and says so. */
  const [missing, setMissing] = useState<string[]>([]);
  const resultRef = useRef<HTMLElement>(null);
  useReveal(resultRef, summary);

  const status = busy ? "generating" : summary !== null ? "done" : "idle";

  const [progress, setProgress] = useSummaryProgress(busy);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const desiredLength = intOf(length);
    void run({
      validate: () => checkSummaryRequest({ text, requiredPhrases: phrases, desiredLength }),
      onStart: () => {
        setSummary(null);
        setMissing([]);
        setProgress(0);
      },
      request: (uid, signal) =>
        summarize(
          { uid, text, requiredPhrases: phrases.filter((p) => p.trim()), desiredLength, language: lang },
          signal,
        ),
      onSuccess: (res) => {
        setProgress(100);
        setSummary(res.summary);
        setMissing(res.missingPhrases ?? phrasesMissingFrom(text, phrases));
      },
      onFailure: () => setProgress(0),
    });
  };

  return (
    <section className="page tt-page">
      <PageHeader title={t("tools.summary.title")} lead={t("tools.summary.description")} />

      <form className="card tt-card form" onSubmit={onSubmit} noValidate aria-busy={busy}>
        <div className="field">
          <div className="field-label-row">
            <label htmlFor="summary-text">{t("summary.textLabel")}</label>
            <span className="hint" data-testid="summary-count" aria-live="polite">
              {t("summary.charCount", { count: charCount(text) })}
            </span>
          </div>
          <textarea
            id="summary-text"
            data-testid="summary-text"
            className="tt-textarea"
            dir="auto"
            rows={12}
            value={text}
            placeholder={t("summary.textPlaceholder")}
            onChange={(e) => setText(e.target.value)}
            disabled={busy}
          />
        </div>

        <SummaryLengthField value={length} onChange={setLength} disabled={busy} />

        <PhraseFields phrases={phrases} onChange={setPhrases} disabled={busy} />

        {error ? <ErrorAlert message={error.message} error={error.cause} testId="summary-error" /> : null}

        <div className="button-row">
          <button
            type="submit"
            className="btn btn-primary"
            data-testid="summary-generate"
            disabled={busy}
            aria-busy={busy}
          >
            {busy ? t("summary.generating") : t("summary.generate")}
          </button>
        </div>

        {status !== "idle" ? <SummaryProgress status={status} busy={busy} progress={progress} /> : null}
      </form>

      {status === "done" ? (
        <SummaryResult
          ref={resultRef}
          summary={summary}
          missing={missing}
          copied={copied}
          onCopy={() => copy(summary ?? "")}
          lang={lang}
        />
      ) : null}
    </section>
  );
}
