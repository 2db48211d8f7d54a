/**
 * Monthly periods anchored on a day of the month (the registration or billing day). A day-31 anchor
 * falls on the last day of shorter months; the anchor is kept, so the next month returns to day 31.
 * All arithmetic is in UTC; the time of day of `from` is kept.
 */
export function daysInMonthUtc(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

export function addMonthsAnchored(from: Date, months: number, anchorDay: number = from.getUTCDate()): Date {
  const y = from.getUTCFullYear();
  const m = from.getUTCMonth() + months;
  const target = new Date(Date.UTC(y, m, 1));
  const day = Math.min(anchorDay, daysInMonthUtc(target.getUTCFullYear(), target.getUTCMonth()));
  return new Date(
    Date.UTC(
      target.getUTCFullYear(),
      target.getUTCMonth(),
      day,
      from.getUTCHours(),
      from.getUTCMinutes(),
      from.getUTCSeconds(),
      from.getUTCMilliseconds(),
    ),
  );
}
