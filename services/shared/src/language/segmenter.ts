/** Intl.Segmenter instances by language and granularity, and the piecewise walk long texts need. */

const segmenters = new Map<string, Intl.Segmenter>();

export function segmenter(lang: string, granularity: "sentence" | "word"): Intl.Segmenter {
  const key = `${lang}:${granularity}`;
  let s = segmenters.get(key);
  if (!s) {
    s = new Intl.Segmenter(lang, { granularity });
    segmenters.set(key, s);
  }
  return s;
}

/**
 * Pieces of at most about `max` UTF-16 units, cut at a line break, else after a sentence end, else at
 * a space or clause mark. V8's segment iterator slows down quadratically on long strings (100,000
 * characters take seconds), so long texts are segmented piece by piece; the cuts are where ICU would
 * break anyway.
 */
export function textPieces(text: string, max = 2000): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = 0;
  while (text.length - from > max) {
    const window = text.slice(from, from + max);
    let cut = window.lastIndexOf("\n") + 1;
    if (cut < max / 4) {
      let best = -1;
      for (const m of window.matchAll(/[.!?。！？]["'」』”)]*\s*/gu)) best = (m.index ?? 0) + m[0].length;
      if (best < max / 4) for (const m of window.matchAll(/[\s、，,;；]+/gu)) best = (m.index ?? 0) + m[0].length;
      cut = best >= max / 4 ? best : max;
    }
    // Never between the halves of a surrogate pair.
    if (/[\uDC00-\uDFFF]/.test(text[from + cut] ?? "")) cut--;
    out.push([from, from + cut]);
    from += cut;
  }
  if (from < text.length) out.push([from, text.length]);
  return out;
}
