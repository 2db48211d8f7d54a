/** Audio times on the transcription screen: clock times, the time left, the audio-based bar value. Pure (Intl only). */

/** Integer formats by locale and padding: the label re-renders with every chunk. */
const intFormats = new Map<string, Intl.NumberFormat>();

function formatInt(value: number, locale: string, minDigits: number): string {
  const key = `${locale}|${minDigits}`;
  try {
    let f = intFormats.get(key);
    if (!f) {
      f = new Intl.NumberFormat(locale, { minimumIntegerDigits: minDigits, useGrouping: false });
      intFormats.set(key, f);
    }
    return f.format(value);
  } catch {
    return String(value).padStart(minDigits, "0");
  }
}

/**
 * A position or length in the recording as a clock, in the UI language's digits: "2:30", "1:02:03";
 * with `padMinutes` "02:30" (the transcript's timestamps). Fractions are cut, negatives count as 0.
 */
export function formatClock(seconds: number, locale: string, opts: { padMinutes?: boolean } = {}): string {
  const total = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = formatInt(s, locale, 2);
  if (h > 0) return `${formatInt(h, locale, 1)}:${formatInt(m, locale, 2)}:${ss}`;
  return `${formatInt(m, locale, opts.padMinutes ? 2 : 1)}:${ss}`;
}

/** The `datetime` of a `<time>` for a position in the recording: an ISO 8601 duration ("PT150.5S"). */
export function isoDuration(seconds: number): string {
  const v = Number.isFinite(seconds) ? Math.max(0, seconds) : 0;
  return `PT${Number(v.toFixed(3))}S`;
}

/** The estimate to show: seconds (in steps of 5) under a minute, else whole minutes; null hides it. */
export type Eta = { unit: "seconds" | "minutes"; count: number };

export function etaParts(etaSeconds: number | null | undefined): Eta | null {
  if (etaSeconds === null || etaSeconds === undefined || !Number.isFinite(etaSeconds) || etaSeconds <= 0) return null;
  if (etaSeconds < 55) return { unit: "seconds", count: Math.max(5, Math.ceil(etaSeconds / 5) * 5) };
  return { unit: "minutes", count: Math.max(1, Math.round(etaSeconds / 60)) };
}

/** How far the transcription is in audio, 0–100; null when the length is not known. */
export function audioPercent(done: number, total: number): number | null {
  if (!Number.isFinite(done) || !Number.isFinite(total) || total <= 0) return null;
  return Math.min(100, Math.max(0, (100 * done) / total));
}

/**
 * The estimate to show `elapsed` seconds after the server gave `eta`: counting down in between, but
 * never to nothing while work is left (etaParts then reads "about 5 seconds"); null when there is none.
 */
export function remainingEta(eta: number | null, elapsed: number): number | null {
  if (eta === null || !Number.isFinite(eta) || eta <= 0) return null;
  return Math.max(1, eta - Math.max(0, elapsed));
}

/** A size in megabytes as the interface language writes it ("4.8 MB"). */
export function formatMegabytes(bytes: number, locale: string): string {
  const mb = bytes / (1024 * 1024);
  try {
    return new Intl.NumberFormat(locale, { style: "unit", unit: "megabyte", maximumFractionDigits: 1 }).format(mb);
  } catch {
    return `${mb.toFixed(1)} MB`;
  }
}
