import { useTranslation } from "react-i18next";
import { formatAmount } from "../plan/format.ts";
import { useLang } from "../routing/useLang.ts";
import { type AudioProgress, barTone, isTerminal, type Phase } from "./progress.ts";
import { etaParts, formatClock } from "./time.ts";

/**
 * The job's progress bar: phase label, percentage, colour by state (neutral while running, success when
 * done, error only on failure);
 * while transcribing, how much of the recording is done and about how long is left.
 */
export function ProgressBar({ phase, value, audio }: { phase: Phase; value: number; audio?: AudioProgress | null }) {
  const { t } = useTranslation();
  const lang = useLang();
  const label = t(`transcription.phases.${phase}`);
  const rounded = Math.round(value * 10) / 10;
  return (
    <div className="tx-progress-block">
      <div className="tx-progress-head">
        <span className="tx-phase-label" data-testid="tx-phase-label" aria-live="polite">
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
      {phase === "transcribing" && audio && audio.total > 0 ? <AudioProgressLabel audio={audio} /> : null}
    </div>
  );
}

/** "2:30 of 10:00 transcribed · about 1 min left" (the estimate only when the server has one). */
function AudioProgressLabel({ audio }: { audio: AudioProgress }) {
  const { t } = useTranslation();
  const lang = useLang();
  const eta = etaParts(audio.eta);
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
          <span data-testid="tx-eta" data-value={audio.eta}>
            {t(eta.unit === "seconds" ? "transcription.etaSeconds" : "transcription.etaMinutes", { count: eta.count })}
          </span>
        </>
      ) : null}
    </p>
  );
}
