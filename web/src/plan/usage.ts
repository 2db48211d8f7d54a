/** Usage-bar rules: percentage capped at 100, red above 80 %. Pure. */

export const USAGE_WARNING_PERCENT = 80;

export function usagePercent(used: number, max: number): number {
  if (!Number.isFinite(used) || used <= 0) return 0;
  if (!Number.isFinite(max) || max <= 0) return 100;
  return Math.min(100, (used / max) * 100);
}

export function isUsageHigh(percent: number): boolean {
  return percent > USAGE_WARNING_PERCENT;
}
