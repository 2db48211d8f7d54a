/**
 * Sentences of any language through Intl.Segmenter (ICU), so texts without spaces (Japanese, Chinese,
 * Thai) split as well as English or German. Every span keeps its offsets into the source text, so a
 * selection of sentences can be put back together verbatim.
 */
import { segmenter, textPieces } from "./segmenter.ts";
import { wordBoundaries } from "./words.ts";

export interface Span {
  /** Exactly source.slice(start, end). */
  text: string;
  start: number;
  end: number;
}

/** Longest sentence (UTF-16 units) before it is cut at clause boundaries: keeps length fitting fine-grained. */
export const MAX_SENTENCE = 320;

/** Abbreviations after which ICU would wrongly end a sentence ("Dr. Müller", "z. B.", "am 3. Mai"). */
const ABBREVIATIONS: Record<string, RegExp> = {
  en: /(?:^|[\s(])(?:mr|mrs|ms|dr|prof|sr|jr|st|vs|e\.g|i\.e|inc|ltd|corp|no|fig|approx|dept|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.$/i,
  de: /(?:^|[\s(])(?:dr|prof|bzw|ca|nr|vgl|evtl|ggf|inkl|str|hr|fr|mio|mrd|abs|jh|bspw|sog|max|min|tel)\.$|(?:^|\s)\d{1,2}\.$/i,
  fr: /(?:^|[\s(])(?:m|mme|mlle|dr|p\.ex|cf|env)\.$/i,
};
const INITIAL = /(?:^|[\s.(])\p{L}\.$/u;

function trimSpan(text: string, start: number, end: number): Span | null {
  while (start < end && /\s/u.test(text[start])) start++;
  while (end > start && /\s/u.test(text[end - 1])) end--;
  return end > start ? { text: text.slice(start, end), start, end } : null;
}

/** Sentences of the text, trimmed, in order; overlong ones are cut at clause or word boundaries. */
export function splitSentences(text: string, lang: string, maxChars = MAX_SENTENCE): Span[] {
  // ICU counts opening brackets and quotes as "Close" characters, so "…でした。「次…" would leave
  // the 「 on the first sentence: move such trailing openers to the start of the next sentence.
  const cuts: number[] = [];
  for (const [pStart, pEnd] of textPieces(text, 4000)) {
    for (const seg of segmenter(lang, "sentence").segment(text.slice(pStart, pEnd))) {
      const segStart = pStart + seg.index;
      let end = segStart + seg.segment.length;
      if (end < text.length) {
        let p = end;
        while (p > segStart && /\s/u.test(text[p - 1])) p--;
        let q = p;
        while (q > segStart && /[\p{Ps}\p{Pi}「『“‘„]/u.test(text[q - 1])) q--;
        if (q < p && q > segStart) end = q;
      }
      cuts.push(end);
    }
  }
  const raw: Span[] = [];
  let from = 0;
  for (const end of cuts) {
    if (end <= from) continue;
    const span = trimSpan(text, from, end);
    if (span) raw.push(span);
    from = end;
  }
  if (from < text.length) {
    const span = trimSpan(text, from, text.length);
    if (span) raw.push(span);
  }
  const abbr = ABBREVIATIONS[lang];
  const merged: Span[] = [];
  for (const span of raw) {
    const prev = merged[merged.length - 1];
    const gap = prev ? text.slice(prev.end, span.start) : "";
    const joinable = prev && !gap.includes("\n");
    const prevEndsShort =
      prev && ((abbr?.test(prev.text) ?? false) || (/^\p{Script=Latin}/u.test(prev.text) && INITIAL.test(prev.text)));
    // A span with no letter or digit (a lone "…" or "—") belongs to the sentence before it.
    const noWords = !/[\p{L}\p{N}]/u.test(span.text);
    if (prev && joinable && (prevEndsShort || noWords)) {
      merged[merged.length - 1] = { text: text.slice(prev.start, span.end), start: prev.start, end: span.end };
    } else {
      merged.push(span);
    }
  }
  const out: Span[] = [];
  for (const span of merged) out.push(...splitLong(text, span, lang, maxChars));
  return out;
}

/** Cuts an overlong sentence into pieces of at most maxChars, preferring clause ends, then spaces, then words. */
function splitLong(source: string, span: Span, lang: string, maxChars: number): Span[] {
  if (span.text.length <= maxChars) return [span];
  const t = span.text;
  const collect = (re: RegExp) => {
    const cuts: number[] = [];
    for (const m of t.matchAll(re)) {
      const at = (m.index ?? 0) + m[0].length;
      if (at > 0 && at < t.length) cuts.push(at);
    }
    return cuts;
  };
  let cuts = collect(/[,;:，、；：—–]\s*/gu);
  if (cuts.length === 0 || lang === "th") cuts = [...new Set([...cuts, ...collect(/\s+/gu)])].sort((a, b) => a - b);
  if (cuts.length === 0) cuts = wordBoundaries(t, lang).filter((b) => b > 0 && b < t.length);
  if (cuts.length === 0) {
    for (let i = maxChars; i < t.length; i += maxChars) cuts.push(i);
  }
  const pieces: Span[] = [];
  let from = 0;
  while (t.length - from > maxChars) {
    let cut = -1;
    for (const c of cuts) {
      if (c <= from) continue;
      if (c - from <= maxChars) cut = c;
      else break;
    }
    if (cut < 0) cut = cuts.find((c) => c > from) ?? t.length;
    if (cut >= t.length) break;
    const piece = trimSpan(source, span.start + from, span.start + cut);
    if (piece) pieces.push(piece);
    from = cut;
  }
  const last = trimSpan(source, span.start + from, span.end);
  if (last) pieces.push(last);
  return pieces;
}
