import type { TranscriptionSnapshot } from "@kikitori/shared";
import { type RefObject, useEffect, useMemo, useRef } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { useReveal } from "../components/useReveal.ts";
import { ExportMenu } from "../job/ExportMenu.tsx";
import { OnwardLinks } from "../job/OnwardLinks.tsx";
import { SegmentList } from "../job/SegmentList.tsx";
import { SpeakersPanel } from "../job/SpeakersPanel.tsx";
import { usePlayer } from "../job/usePlayer.ts";
import { formatAmount } from "../plan/format.ts";
import { jobPath } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { AudioPlayer } from "./AudioPlayer.tsx";
import { formatSeconds } from "./form.ts";
import { LiveTranscript } from "./LiveTranscript.tsx";
import type { TranscriptionState } from "./progress.ts";
import { RetryButton } from "./RetryButton.tsx";
import { SpeechMeta } from "./SpeechMeta.tsx";
import { TextOutput } from "./TextOutput.tsx";

/**
 * The result area: audio playback, transcript, corrected interview, times and character count. While
 * transcribing, the live text grows; once transcribed, the transcript is the job page's timed list
 * (times, speakers, Enter on a time plays from there). When processing ends, the focus moves to the
 * result's heading (the form's button it was on is disabled while the job runs).
 */
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
  const segmentTexts = useMemo(() => state.segments.map((s) => s.text), [state.segments]);
  const segmentSpeakers = useMemo(() => state.segments.map((s) => s.speaker), [state.segments]);
  // When the transcript arrives, the result comes into view (it is below the form, often off screen).
  const ref = useRef<HTMLElement>(null);
  useReveal(ref, state.transcription !== null ? (state.jobId ?? "result") : null);
  const player = usePlayer(true, { keys: false });
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusWhenDone(heading, state.processing);

  return (
    <section ref={ref} className="card tx-result" aria-labelledby="tx-result-title" data-testid="tx-result">
      <h2 id="tx-result-title" ref={heading} tabIndex={-1} data-testid="tx-result-title">
        {t("transcription.resultTitle")}
      </h2>
      {state.phase === "failed" && state.jobId && onRetry ? <RetryButton onRetry={onRetry} /> : null}

      {state.audioFileUrl || state.audioExpired ? (
        <div className="tx-audio-block">
          <h3>{t("transcription.audioTitle")}</h3>
          <AudioPlayer
            url={state.audioFileUrl}
            expired={state.audioExpired}
            onExpired={onAudioExpired}
            audioRef={player.attach}
          />
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
          // While transcribing, the text grows chunk by chunk; once complete, the timed list replaces it.
          state.segments.length > 0
            ? (headingId) => <LiveTranscript segments={state.segments} labelledBy={headingId} />
            : undefined
        }
        renderText={
          state.segments.length > 0
            ? () => (
                <div className="tx-segments" data-testid="tx-transcript">
                  <SegmentList
                    segments={state.segments}
                    texts={segmentTexts}
                    who={segmentSpeakers}
                    speakers={state.speakers}
                    time={player.time}
                    canSeek={player.ready}
                    editable={false}
                    language={state.spokenLanguage ?? lang}
                    plainText
                    onSeek={player.seek}
                    onPlay={player.play}
                    onEdit={noop}
                    onSpeaker={noop}
                  />
                </div>
              )
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
        <CorrectionFacts state={state} />
        {state.jobId && state.rewrittenText !== null && state.speakers.length > 1 ? (
          <SpeakersPanel jobId={state.jobId} speakers={state.speakers} onRenamed={onSpeakersRenamed} />
        ) : null}
      </TextOutput>

      {state.rewrittenText ? <OnwardLinks text={state.rewrittenText} /> : null}

      {state.jobId && state.transcription !== null ? (
        <p>
          <Link className="btn btn-secondary" data-testid="tx-open-job" to={jobPath(lang, state.jobId)}>
            {t("job.openWorkspace")}
          </Link>
        </p>
      ) : null}

      {state.jobId && state.transcription !== null ? (
        <ExportMenu jobId={state.jobId} interviewReady={state.rewrittenText !== null} />
      ) : null}
    </section>
  );
}

const noop = () => {};

/** How long the correction took and how many characters the interview has (each once known). */
function CorrectionFacts({ state }: { state: TranscriptionState }) {
  const { t } = useTranslation();
  const lang = useLang();
  const seconds = (v: number) => formatSeconds(v, lang);
  if (state.correctionTime === null && state.characterCount === null) return null;
  return (
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
  );
}

/**
 * Moves the focus to `target` when processing ends (running → not running), unless the user has put it
 * somewhere else meanwhile: only from nowhere (the body), from a disabled control, or from the form.
 */
function useFocusWhenDone(target: RefObject<HTMLElement | null>, processing: boolean) {
  const was = useRef(processing);
  useEffect(() => {
    const ended = was.current && !processing;
    was.current = processing;
    if (!ended || !target.current) return;
    const active = document.activeElement as HTMLElement | null;
    const lost =
      !active ||
      active === document.body ||
      (active as HTMLButtonElement).disabled === true ||
      !!active.closest(".tx-form");
    if (lost) target.current.focus();
  }, [processing, target]);
}
