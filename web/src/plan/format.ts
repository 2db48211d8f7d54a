/** Display formatting for the plan screen. Pure (Intl only). */

/**
 * Formats the reset/billing date in the UI language. Billing days are anchored in UTC on the server,
 * so the date is shown as its UTC calendar day. Unparseable input is returned unchanged.
 */
export function formatDate(value: string, locale: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(d);
  } catch {
    return new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" }).format(d);
  }
}

/** Number formats by locale and digits: building one is costly and progress bars re-render often. */
const numberFormats = new Map<string, Intl.NumberFormat>();

export function formatAmount(value: number, locale: string, maxFractionDigits = 1): string {
  const key = `${locale}|${maxFractionDigits}`;
  try {
    let f = numberFormats.get(key);
    if (!f) {
      f = new Intl.NumberFormat(locale, { maximumFractionDigits: maxFractionDigits });
      numberFormats.set(key, f);
    }
    return f.format(value);
  } catch {
    return String(value);
  }
}

/** Rounds to one decimal place, for counts shown through i18next's number format ("12.5 minutes"). */
export function oneDecimal(value: number): number {
  return Math.round(value * 10) / 10;
}
