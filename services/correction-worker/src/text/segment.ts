/**
 * Sentences and words of any language through Intl.Segmenter (ICU), so texts without spaces
 * (Japanese, Chinese, Thai) split as well as English or German. Every span keeps its offsets into
 * the source text, so a selection of sentences can be put back together verbatim.
 */
import { stopwords } from "./stopwords.ts";

export interface Span {
  /** Exactly source.slice(start, end). */
  text: string;
  start: number;
  end: number;
}

export interface Token {
  surface: string;
  /** NFKC, lower-cased: the form words are compared by. */
  norm: string;
  start: number;
  end: number;
  /** Carries topic (not a function word, not a bare particle). */
  content: boolean;
}

/** Longest sentence (UTF-16 units) before it is cut at clause boundaries: keeps length fitting fine-grained. */
export const MAX_SENTENCE = 320;

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(lang: string, granularity: "sentence" | "word"): Intl.Segmenter {
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
export function pieces(text: string, max = 2000): Array<[number, number]> {
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
  for (const [pStart, pEnd] of pieces(text, 4000)) {
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

/** Whether a word carries topic in this language. */
export function isContentWord(norm: string, lang: string): boolean {
  if (!/[\p{L}\p{N}]/u.test(norm)) return false;
  if (stopwords(lang).has(norm)) return false;
  if (lang === "ja") {
    // Bare hiragana words are particles, auxiliaries and verb endings; topics are kanji/katakana/Latin.
    if (/^[\p{Script=Hiragana}ー]+$/u.test(norm)) return false;
    if (/^\p{N}+$/u.test(norm)) return false;
    return true;
  }
  if (lang === "zh" || lang === "th") return !/^\p{N}+$/u.test(norm);
  // Spaced languages: a single letter or a bare number is not a topic word.
  if (norm.length < 2) return false;
  if (/^\p{N}+$/u.test(norm) && norm.length < 4) return false;
  return true;
}

const ASCII = /^[\x20-\x7e]*$/;
const LOCALE_CASE = new Set(["tr", "az", "lt"]);

/** The form words are compared by: NFKC (full-width letters, compatibility forms) and lower case. */
export function normWord(word: string, lang: string): string {
  if (ASCII.test(word)) return word.toLowerCase();
  const nfkc = word.normalize("NFKC");
  return LOCALE_CASE.has(lang) ? nfkc.toLocaleLowerCase(lang) : nfkc.toLowerCase();
}

/** Word tokens (ICU word boundaries, word-like segments only) with offsets relative to `offset`. */
export function tokenize(text: string, lang: string, offset = 0): Token[] {
  const out: Token[] = [];
  const words = segmenter(lang, "word");
  for (const [pStart, pEnd] of pieces(text)) {
    for (const seg of words.segment(text.slice(pStart, pEnd))) {
      if (!seg.isWordLike) continue;
      const norm = normWord(seg.segment, lang);
      const start = offset + pStart + seg.index;
      out.push({
        surface: seg.segment,
        norm,
        start,
        end: start + seg.segment.length,
        content: isContentWord(norm, lang),
      });
    }
  }
  return out;
}

/** Word boundaries (UTF-16 offsets) inside a text: where it may be cut without splitting a word. */
export function wordBoundaries(text: string, lang: string): number[] {
  const out: number[] = [0];
  for (const [pStart, pEnd] of pieces(text)) {
    if (pStart > 0) out.push(pStart);
    for (const seg of segmenter(lang, "word").segment(text.slice(pStart, pEnd))) {
      if (seg.index > 0) out.push(pStart + seg.index);
    }
  }
  out.push(text.length);
  return out;
}

/**
 * Speaker labels of an interview or minutes: a short name followed by a colon at the start of a line
 * ("Interviewer:", "Dr. Lena Ortiz:", "佐藤：", "Frage:"), counted when the same name starts at least
 * two lines. Keyed by the offset of the line; the text includes the colon and following spaces.
 */
export function speakerLabels(text: string): Map<number, { end: number; text: string; name: string }> {
  const found: Array<{ line: number; name: string; end: number; text: string }> = [];
  const re = /^([^\n:：]{1,40}?)([:：][ \t\u3000]*)/gmu;
  for (const m of text.matchAll(re)) {
    const name = m[1].trim();
    if (!name || /[.!?。！？]$/u.test(name) || /^[\d\s]+$/u.test(name) || name.split(/\s+/u).length > 4) continue;
    const line = m.index ?? 0;
    found.push({ line, name, end: line + m[0].length, text: m[0] });
  }
  const counts = new Map<string, number>();
  for (const f of found) counts.set(f.name, (counts.get(f.name) ?? 0) + 1);
  const out = new Map<number, { end: number; text: string; name: string }>();
  for (const f of found) {
    if ((counts.get(f.name) ?? 0) >= 2) out.set(f.line, { end: f.end, text: f.text, name: f.name });
  }
  return out;
}
