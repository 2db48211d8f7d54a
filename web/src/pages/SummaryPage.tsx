import {
  charCount,
  checkSummaryRequest,
  phrasesMissingFrom,
  REQUIRED_PHRASES_MAX,
  REQUIRED_PHRASES_MIN,
  SUMMARY_LENGTH_DEFAULT,
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
import { summarize } from "../text-tools/api.ts";
import {
  addPhraseRow,
  intOf,
  nextSummaryProgress,
  progressTone,
  removePhraseRow,
  textFromNavigation,
} from "../text-tools/logic.ts";
import { useTextTool } from "../text-tools/useTextTool.ts";
import "../text-tools/text-tools.css";

/** "“a”, “b” and “c”" in the UI language (quoted, so a phrase's own commas cannot blur the list). */
function listOf(items: readonly string[], lang: string): string {
  const quoted = items.map((p) => `“${p}”`);
  try {
    return new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(quoted);
  } catch {
    return quoted.join(", ");
  }
}

/** The summary screen (spec sections 2, 4, 5, 8): text, desired length, required phrases, progress, copy. */
export function SummaryPage() {
  const { t } = useTranslation();
  const { busy, error, copied, run, copy, lang } = useTextTool("messages.summaryFailed", "Summary failed");
  usePageMeta("summary");

  // "Summarise this interview" / "Titles for this interview" arrive with the interview text.
  const navState = useLocation().state;
  const [text, setText] = useState(() => textFromNavigation(navState));
  const [length, setLength] = useState(String(SUMMARY_LENGTH_DEFAULT));
  const [phrases, setPhrases] = useState<string[]>(["", ""]);
  const [progress, setProgress] = useState(0);
  /** The last summary; null before the first one and while a new one is generated. */
  const [summary, setSummary] = useState<string | null>(null);
  /** Required phrases the text did not contain: the summary had to bring them in, and says so. */
  const [missing, setMissing] = useState<string[]>([]);
  const focusPhrase = useRef<number | null>(null);
  const resultRef = useRef<HTMLElement>(null);
  useReveal(resultRef, summary);

  const status = busy ? "generating" : summary !== null ? "done" : "idle";
  const n = (v: number) => formatAmount(v, lang);

  // While waiting, the bar rises 1 per second up to 98.
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => setProgress(nextSummaryProgress), 1000);
    return () => clearInterval(timer);
  }, [busy]);

  const setPhrase = (i: number, value: string) => setPhrases((rows) => rows.map((r, k) => (k === i ? value : r)));
  const addPhrase = () => {
    focusPhrase.current = phrases.length;
    setPhrases(addPhraseRow);
  };
  const removePhrase = (i: number) => setPhrases((rows) => removePhraseRow(rows, i));

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
            value={length}
            onChange={(e) => setLength(e.target.value)}
            disabled={busy}
          />
          <p className="hint">{t("summary.lengthHint", { min: n(SUMMARY_LENGTH_MIN), max: n(SUMMARY_LENGTH_MAX) })}</p>
        </div>

        <fieldset className="field tt-phrases" disabled={busy}>
          <legend>{t("summary.phrasesLabel")}</legend>
          <p className="hint">{t("summary.phrasesHint", { min: REQUIRED_PHRASES_MIN })}</p>
          {phrases.map((p, i) => (
            // Rows have no identity but their position: removing one shifts the rest, as intended.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <div className="tt-phrase-row" key={i}>
              <input
                ref={(el) => {
                  // A row just added gets the focus.
                  if (el && focusPhrase.current === i) {
                    el.focus();
                    focusPhrase.current = null;
                  }
                }}
                data-testid={`summary-phrase-${i}`}
                aria-label={t("summary.phraseLabel", { n: i + 1 })}
                placeholder={t("summary.phrasePlaceholder", { n: i + 1 })}
                value={p}
                onChange={(e) => setPhrase(i, e.target.value)}
              />
              <button
                type="button"
                className="btn btn-ghost tt-remove"
                data-testid={`summary-remove-phrase-${i}`}
                onClick={() => removePhrase(i)}
                disabled={phrases.length <= REQUIRED_PHRASES_MIN}
                aria-label={t("summary.removePhrase", { n: i + 1 })}
                title={t("summary.removePhrase", { n: i + 1 })}
              >
                ×
              </button>
            </div>
          ))}
          <button
            type="button"
            className="btn btn-secondary tt-add"
            data-testid="summary-add-phrase"
            onClick={addPhrase}
            disabled={phrases.length >= REQUIRED_PHRASES_MAX}
          >
            {t("summary.addPhrase")}
          </button>
        </fieldset>

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

        {status !== "idle" ? (
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
        ) : null}
      </form>

      {status === "done" ? (
        <section ref={resultRef} className="card tt-card tt-result" aria-labelledby="summary-result-title">
          <div className="tt-result-head">
            <h2 id="summary-result-title" className="section-title">
              {t("summary.resultTitle")}
            </h2>
            <span className="hint">{t("summary.charCount", { count: charCount(summary ?? "") })}</span>
          </div>
          {missing.length > 0 ? (
            <div
              className="alert alert-warning"
              role="status"
              data-testid="summary-missing"
              data-count={missing.length}
            >
              {t("summary.missingPhrases", { phrases: listOf(missing, lang) })}
            </div>
          ) : null}
          <div className="tt-output" data-testid="summary-result" dir="auto">
            {summary}
          </div>
          <div className="tt-copy">
            <span
              className={copied === "failed" ? "tt-copy-note failed" : "tt-copy-note"}
              role="status"
              data-testid="summary-copied"
            >
              {copied === "copied" ? t("messages.summaryCopied") : copied === "failed" ? t("summary.copyFailed") : ""}
            </span>
            <button
              type="button"
              className="btn btn-secondary"
              data-testid="summary-copy"
              onClick={() => copy(summary ?? "")}
            >
              {t("summary.copy")}
            </button>
          </div>
        </section>
      ) : null}
    </section>
  );
}
