import { addMonthsAnchored } from "../dates.ts";

export interface UsagePeriod {
  periodStart: Date;
  resetDate: Date;
  /** Day of month (1-31) the period is anchored to. */
  anchorDay: number;
}

/**
 * Rolls a monthly usage period forward until its reset date lies after `now`: each step starts the
 * new period on the old reset date and puts the next reset one anchored month later (a day-31 anchor
 * lands on the last day of shorter months and returns to 31 afterwards). `months` is how many resets
 * were due (0 when the period is still current, in which case the dates are returned unchanged).
 */
export function rollPeriod(period: UsagePeriod, now: Date): { periodStart: Date; resetDate: Date; months: number } {
  const anchor =
    Number.isInteger(period.anchorDay) && period.anchorDay >= 1 && period.anchorDay <= 31
      ? period.anchorDay
      : period.resetDate.getUTCDate();
  let periodStart = period.periodStart;
  let resetDate = period.resetDate;
  let months = 0;
  while (resetDate.getTime() <= now.getTime()) {
    periodStart = resetDate;
    resetDate = addMonthsAnchored(resetDate, 1, anchor);
    months++;
  }
  return { periodStart, resetDate, months };
}
