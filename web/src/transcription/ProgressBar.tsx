import { useTranslation } from "react-i18next";
import { formatAmount } from "../plan/format.ts";
import { useLang } from "../routing/useLang.ts";
import { barColor, isTerminal, type Phase } from "./progress.ts";

/** The job's progress bar: phase label, percentage, colour by value (green ≤ 50, yellow > 50, red > 80). */
export function ProgressBar({ phase, value }: { phase: Phase; value: number }) {
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
        className={`tx-progress tx-progress-${barColor(value)}`}
        data-testid="tx-progress"
        data-phase={phase}
        data-value={rounded}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={rounded}
      >
        <div className="tx-progress-fill" style={{ inlineSize: `${Math.min(100, Math.max(0, value))}%` }} />
      </div>
    </div>
  );
}
