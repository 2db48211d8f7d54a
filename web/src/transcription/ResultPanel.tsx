import type { TranscriptionSnapshot } from "@kikitori/shared";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { useReveal } from "../components/useReveal.ts";
import { copyToClipboard } from "../lib/clipboard.ts";
import { formatAmount } from "../plan/format.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { languageName } from "./audioLanguage.ts";
import { ExportMenu } from "./ExportMenu.tsx";
import { formatSeconds } from "./form.ts";
import { LiveTranscript } from "./LiveTranscript.tsx";
import { shownLanguage, type TranscriptionState } from "./progress.ts";
import { SpeakersPanel } from "./SpeakersPanel.tsx";
import { useAudioSource } from "./useAudioSource.ts";

/** The player for the stored audio, or the retention-expired notice. */
function AudioPlayer({ url, expired, onExpired }: { url: string | null; expired: boolean; onExpired: () => void }) {
  const { t } = useTranslation();
  const source = useAudioSource(expired ? null : url);
  const isExpired = expired || source.status === "expired";

  useEffect(() => {
    if (source.status === "expired") onExpired();
  }, [source.status, onExpired]);

  if (isExpired) {
    return (
      <p className="alert alert-info" data-testid="tx-audio-expired" role="status">
        {t("messages.retentionExpired")}
      </p>
    );
  }
  if (source.status === "none") return null;
  if (source.status === "loading") {
    return (
      <p className="status-line tx-audio-status" role="status">
        <span className="spinner" aria-hidden="true" />
        {t("transcription.audioLoading")}
      </p>
    );
  }
  if (source.status === "error") {
    return <p className="muted tx-audio-status">{t("transcription.audioLoadFailed")}</p>;
  }
  return (
    // biome-ignore lint/a11y/useMediaCaption: an interview recording has no caption track; the transcript is the text alternative
    <audio
      className="tx-audio"
      data-testid="tx-audio"
      controls
      preload="metadata"
      src={source.src}
      onError={(e) => {
        // Only a real media error of the current source (not an unmount) is reported.
        if (e.currentTarget.error) window.alert(t("messages.audioExpired"));
      }}
    >
      {t("messages.audioNotSupported")}
    </audio>
  );
}

type CopyState = "idle" | "copied" | "failed";

/** A read-only text output with its heading and copy button. */
function TextOutput({
  title,
  text,
  waiting,
  testId,
  copyTestId,
  copyLabel,
  renderPending,
  children,
}: {
  title: string;
  text: string | null;
  waiting: string;
  /** What stands in for the text until it is there (default: the `waiting` line); gets the heading's id. */
  renderPending?: (headingId: string) => ReactNode;
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

/** "Language: Japanese (detected)" and the speech engine, in small print under the transcript. */
function SpeechMeta({ state }: { state: TranscriptionState }) {
  const { t } = useTranslation();
  const lang = useLang();
  const shown = shownLanguage(state);
  if (!shown && !state.engine && !state.diarizationEngine) return null;
  return (
    <p className="tx-meta tx-speech-meta">
      {shown ? (
        <span data-testid="tx-result-language" data-value={shown.code}>
          {t(shown.detected ? "transcription.languageDetected" : "transcription.language", {
            language: languageName(shown.code, lang),
          })}
        </span>
      ) : null}
      {state.engine ? (
        <span data-testid="tx-engine" data-value={state.engine}>
          {t("transcription.engine", { engine: state.engine })}
        </span>
      ) : null}
      {state.diarizationEngine ? (
        <span data-testid="tx-diarization-engine" data-value={state.diarizationEngine}>
          {t("transcription.diarizationEngine", { engine: state.diarizationEngine })}
        </span>
      ) : null}
    </p>
  );
}

/** "Try again" on a failed job: it runs again from where it stopped, without a new upload. */
function RetryButton({ onRetry }: { onRetry: () => Promise<void> }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  return (
    <p>
      <button
        type="button"
        className="btn btn-primary"
        data-testid="tx-retry"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void onRetry().finally(() => setBusy(false));
        }}
      >
        {t("transcription.retry")}
      </button>
    </p>
  );
}

/** One click onward: the summary and title tools, opened with the interview text filled in. */
const ONWARD = [
  { tool: "summary", label: "transcription.onwardSummary" },
  { tool: "titles", label: "transcription.onwardTitles" },
] as const;

function OnwardLinks({ text }: { text: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <p className="tx-onward">
      {ONWARD.map(({ tool, label }) => (
        <Link
          key={tool}
          className="btn btn-secondary"
          data-testid={`tx-onward-${tool}`}
          to={localePath(lang, ROUTES[tool])}
          state={{ text }}
        >
          {t(label)}
        </Link>
      ))}
    </p>
  );
}

/** The result area: audio playback, transcript, corrected interview, times and character count. */
export function ResultPanel({
  state,
  onAudioExpired,
  onSpeakersRenamed,
  onRetry,
}: {
  state: TranscriptionState;
  onAudioExpired: () => void;
  onSpeakersRenamed: (snapshot: TranscriptionSnapshot) => void;
  /** Runs a failed job again (shown only on failure). */
  onRetry?: () => Promise<void>;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const seconds = (v: number) => formatSeconds(v, lang);
  // When the transcript arrives, the result comes into view (it is below the form, often off screen).
  const ref = useRef<HTMLElement>(null);
  useReveal(ref, state.transcription !== null ? (state.jobId ?? "result") : null);

  return (
    <section ref={ref} className="card tx-result" aria-labelledby="tx-result-title" data-testid="tx-result">
      <h2 id="tx-result-title">{t("transcription.resultTitle")}</h2>
      {state.phase === "failed" && state.jobId && onRetry ? <RetryButton onRetry={onRetry} /> : null}

      {state.audioFileUrl || state.audioExpired ? (
        <div className="tx-audio-block">
          <h3>{t("transcription.audioTitle")}</h3>
          <AudioPlayer url={state.audioFileUrl} expired={state.audioExpired} onExpired={onAudioExpired} />
        </div>
      ) : null}

      <TextOutput
        title={t("transcription.transcriptTitle")}
        text={state.transcription}
        waiting={t("transcription.waitingTranscript")}
        testId="tx-transcript"
        copyTestId="tx-copy-transcript"
        copyLabel={t("transcription.copyTranscript")}
        renderPending={
          // While transcribing, the text grows chunk by chunk; once complete, the full transcript replaces it.
          state.segments.length > 0
            ? (headingId) => <LiveTranscript segments={state.segments} labelledBy={headingId} />
            : undefined
        }
      >
        {state.transcriptionTime !== null ? (
          <p className="tx-meta" data-testid="tx-transcription-time" data-value={state.transcriptionTime}>
            {t("transcription.transcriptionTime", { seconds: seconds(state.transcriptionTime) })}
          </p>
        ) : null}
        <SpeechMeta state={state} />
      </TextOutput>

      <TextOutput
        title={t("transcription.correctedTitle")}
        text={state.rewrittenText}
        waiting={t("transcription.waitingCorrected")}
        testId="tx-corrected"
        copyTestId="tx-copy-corrected"
        copyLabel={t("transcription.copyCorrected")}
      >
        {state.correctionTime !== null || state.characterCount !== null ? (
          <p className="tx-meta">
            {state.correctionTime !== null ? (
              <span data-testid="tx-correction-time" data-value={state.correctionTime}>
                {t("transcription.correctionTime", { seconds: seconds(state.correctionTime) })}
              </span>
            ) : null}
            {state.characterCount !== null ? (
              <span data-testid="tx-char-count" data-value={state.characterCount}>
                {t("transcription.characterCount", { value: formatAmount(state.characterCount, lang, 0) })}
              </span>
            ) : null}
          </p>
        ) : null}
        {state.jobId && state.rewrittenText !== null && state.speakers.length > 1 ? (
          <SpeakersPanel jobId={state.jobId} speakers={state.speakers} onRenamed={onSpeakersRenamed} />
        ) : null}
      </TextOutput>

      {state.rewrittenText ? <OnwardLinks text={state.rewrittenText} /> : null}

      {state.jobId && state.transcription !== null ? (
        <ExportMenu jobId={state.jobId} interviewReady={state.rewrittenText !== null} />
      ) : null}
    </section>
  );
}
