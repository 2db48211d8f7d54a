/** Dates and times of the library and the job page, in the interface language. Pure (Intl only). */
export function formatDateTime(value: string, locale: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(d);
  } catch {
    return d.toISOString();
  }
}

/** A playback speed as the player's menu shows it: "0.75×", "1,5×" in the interface language. */
export function formatRate(rate: number, lang: string): string {
  return `${new Intl.NumberFormat(lang, { maximumFractionDigits: 2 }).format(rate)}×`;
}
