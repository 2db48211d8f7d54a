import { useId } from "react";
import { useTranslation } from "react-i18next";
import { oneDecimal } from "../plan/format.ts";
import { isUsageHigh, usagePercent } from "../plan/usage.ts";

/**
 * One quota bar: label, "used / max minutes" (one decimal) or "used / max times", a progressbar that
 * turns red above 80 % and stops at 100 %.
 */
export function UsageBar({
  label,
  used,
  max,
  unit,
  testId,
}: {
  label: string;
  used: number;
  max: number;
  unit: "minutes" | "times";
  testId: string;
}) {
  const { t } = useTranslation();
  const id = useId();
  const text =
    unit === "minutes"
      ? t("plan.minutesUsage", { used: oneDecimal(used), count: oneDecimal(max) })
      : t("plan.timesUsage", { used, count: max });
  const percent = usagePercent(used, max);
  const high = isUsageHigh(percent);
  return (
    <div className="usage" data-testid={testId} data-percent={Math.round(percent)} data-high={high}>
      <div className="usage-head">
        <span id={id} className="usage-label">
          {label}
        </span>
        <span className="usage-value">{text}</span>
      </div>
      <div
        className="usage-track"
        role="progressbar"
        aria-labelledby={id}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(percent)}
        aria-valuetext={text}
      >
        <div className={high ? "usage-fill high" : "usage-fill"} style={{ inlineSize: `${percent}%` }} />
      </div>
    </div>
  );
}
