import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { etaParts, formatClock, formatMegabytes, remainingEta } from "../job/time.ts";
import { formatAmount } from "../plan/format.ts";
import { useLang } from "../routing/useLang.ts";
import {
  type AudioProgress,
  barTone,
  isTerminal,
  type Phase,
  type StageProgress,
  type TranscriptionState,
  type UploadProgress,
} from "./progress.ts";
import { useUploadRate } from "./uploadRate.ts";

/** The label of the bar: the phase, or while transcribing the stage it is at (part n of m). */
function phaseLabel(
  t: (key: string, opts?: Record<string, unknown>) => string,
  phase: Phase,
  stage?: StageProgress | null,
) {
  if (phase === "transcribing" && stage) {
    if (stage.name === "speech") return t("transcription.phases.findingSpeech");
    if (stage.name === "voices") return t("transcription.phases.tellingVoices");
    if (stage.part && stage.parts) {
      return t("transcription.phases.transcribingPart", { part: stage.part, parts: stage.parts });
    }
  }
  return t(`transcription.phases.${phase}`);
}

/**
 * The job's progress bar: the phase (or the transcription's stage: finding speech, telling voices
 * apart, transcribing part n of m) and percentage, colour by state (neutral while running, success
 * when done, error only on failure); while uploading, how much of the file is sent; while
 * transcribing, how much of the recording is done and about how long is left.
 */
export function ProgressBar({
  state: { phase, progress: value, audio, stage, upload },
}: {
  state: Pick<TranscriptionState, "phase" | "progress" | "audio" | "stage" | "upload">;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const label = phaseLabel(t, phase, stage);
  const rounded = Math.round(value * 10) / 10;
  return (
    <div className="tx-progress-block">
      <div className="tx-progress-head">
        <span
          className="tx-phase-label"
          data-testid="tx-phase-label"
          data-stage={phase === "transcribing" ? stage?.name : undefined}
          aria-live="polite"
        >
          {isTerminal(phase) ? null : <span className="spinner" aria-hidden="true" />}
          {label}
        </span>
        <span className="tx-progress-value">{formatAmount(rounded, lang)}%</span>
      </div>
      <div
        className={`tx-progress tx-progress-${barTone(phase)}`}
        data-testid="tx-progress"
        data-phase={phase}
        data-tone={barTone(phase)}
        data-value={rounded}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={rounded}
      >
        <div className="tx-progress-fill" style={{ inlineSize: `${Math.min(100, Math.max(0, value))}%` }} />
      </div>
      {phase === "uploading" && upload && upload.total > 0 ? <UploadProgressLabel upload={upload} /> : null}
      {phase === "transcribing" && audio && audio.total > 0 ? <AudioProgressLabel audio={audio} /> : null}
    </div>
  );
}

/**
 * "12 MB of 60 MB sent · 4.2 MB per second · about 10 seconds left", or while a lost connection is
 * retried, that the upload resumes (the speed is measured on the last seconds of progress).
 */
function UploadProgressLabel({ upload }: { upload: UploadProgress }) {
  const { t } = useTranslation();
  const lang = useLang();
  const rate = useUploadRate(upload.sent, upload.total);
  const eta = upload.reconnecting ? null : etaParts(rate?.eta);
  return (
    <p className="tx-audio-progress" data-testid="tx-upload-progress" data-sent={upload.sent} data-total={upload.total}>
      <span>
        {t("transcription.uploadProgress", {
          sent: formatMegabytes(upload.sent, lang),
          total: formatMegabytes(upload.total, lang),
        })}
      </span>
      {upload.reconnecting ? (
        <>
          <span aria-hidden="true"> · </span>
          <span data-testid="tx-upload-reconnecting" role="status">
            {t("transcription.upload.reconnecting")}
          </span>
        </>
      ) : null}
      {rate && !upload.reconnecting ? (
        <>
          <span aria-hidden="true"> · </span>
          <span data-testid="tx-upload-speed" data-value={Math.round(rate.bytesPerSecond)}>
            {t("transcription.upload.speed", { speed: formatMegabytes(rate.bytesPerSecond, lang) })}
          </span>
        </>
      ) : null}
      {eta ? (
        <>
          <span aria-hidden="true"> · </span>
          <span data-testid="tx-upload-eta" data-value={Math.round(rate?.eta ?? 0)}>
            {t(eta.unit === "seconds" ? "transcription.etaSeconds" : "transcription.etaMinutes", { count: eta.count })}
          </span>
        </>
      ) : null}
    </p>
  );
}

/** Seconds since `eta` last changed, ticking once a second while there is one. */
function useSecondsSince(eta: number | null): number {
  const [since, setSince] = useState(() => ({ eta, at: Date.now() }));
  const [now, setNow] = useState(() => Date.now());
  if (since.eta !== eta) setSince({ eta, at: Date.now() });
  useEffect(() => {
    if (eta === null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [eta]);
  return Math.max(0, (now - since.at) / 1000);
}

/**
 * "2:30 of 10:00 transcribed · about 1 min left": the estimate (when the server has one, from the rate
 * measured on the parts done) counts down between updates but never to nothing while work is left.
 */
function AudioProgressLabel({ audio }: { audio: AudioProgress }) {
  const { t } = useTranslation();
  const lang = useLang();
  const elapsed = useSecondsSince(audio.eta);
  const left = remainingEta(audio.eta, elapsed);
  const eta = etaParts(left);
  return (
    <p className="tx-audio-progress" data-testid="tx-audio-progress" data-done={audio.done} data-total={audio.total}>
      <span>
        {t("transcription.audioProgress", {
          done: formatClock(audio.done, lang),
          total: formatClock(audio.total, lang),
        })}
      </span>
      {eta ? (
        <>
          <span aria-hidden="true"> · </span>
          <span data-testid="tx-eta" data-value={left === null ? undefined : Math.round(left)}>
            {t(eta.unit === "seconds" ? "transcription.etaSeconds" : "transcription.etaMinutes", { count: eta.count })}
          </span>
        </>
      ) : null}
    </p>
  );
}
