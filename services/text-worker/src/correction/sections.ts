/**
 * Splitting a transcript into sections that are corrected one at a time. Pure: the sections'
 * source ranges tile the transcript exactly (no character lost or repeated); the overlap for the
 * language model is a separate read-only `context` taken from before the section's start.
 */

export interface Section {
  index: number;
  /** Source range [start, end) in the transcript. */
  start: number;
  end: number;
  /** transcript.slice(start, end) */
  text: string;
  /** Start of the read-only context (≤ start); transcript.slice(contextStart, start) === context. */
  contextStart: number;
  /** Up to `overlapChars` characters before the section, beginning at a word boundary; "" for the first. */
  context: string;
}

export interface SectionOptions {
  /** Longest section in characters (≥ 1). */
  maxChars: number;
  /** Characters of read-only context before each section but the first (0: none). */
  overlapChars?: number;
  /**
   * Preferred break offsets (e.g. sentence starts found by the offline engine), ascending. A hint
   * is used only where it is a word start; otherwise the usual rules apply.
   */
  breakPoints?: readonly number[];
}

const SENTENCE_END = /[.!?…。！？]/;
const SPACE = /\s/;
const SOFT_BREAK = /[、，,;；:：]/;
/** Words a new sentence or turn often starts with: a break just before them reads naturally. */
const GOOD_NEXT_WORD = /^(so|but|well|okay|ok|what|how|why|when|where|who|do|did|can|could|would|yes|yeah|no|now)\b/i;

/**
 * Splits `text` into sections of at most `maxChars` (≥ 2) characters. The break is looked for in
 * the second half of the window first, so sections stay reasonably even, preferring a given
 * break point, a line break or sentence end, a space before a word a sentence often starts with,
 * any space; then a sentence end or space in the first half, a comma, and only then a hard cut
 * (never inside a surrogate pair). Returns [] for "".
 */
export function splitIntoSections(text: string, opts: SectionOptions): Section[] {
  // Two characters at least, so a section can always hold a whole surrogate pair.
  const maxChars = Math.max(2, Math.floor(opts.maxChars));
  const overlap = Math.max(0, Math.floor(opts.overlapChars ?? 0));
  const sections: Section[] = [];
  let pos = 0;
  while (pos < text.length) {
    const end = pos + maxChars >= text.length ? text.length : findBreak(text, pos, maxChars, opts.breakPoints);
    const contextStart = sections.length === 0 ? pos : contextStartFor(text, pos, overlap, sections.at(-1)!.start);
    sections.push({
      index: sections.length,
      start: pos,
      end,
      text: text.slice(pos, end),
      contextStart,
      context: text.slice(contextStart, pos),
    });
    pos = end;
  }
  return sections;
}

/** End (exclusive) of the section starting at `pos`; always in (pos, pos + maxChars]. */
function findBreak(text: string, pos: number, maxChars: number, hints?: readonly number[]): number {
  const limit = pos + maxChars;
  const floor = pos + Math.max(1, Math.floor(maxChars / 2));
  if (hints?.length) {
    // The last hint in [floor, limit] that is a word start.
    let lo = 0;
    let hi = hints.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (hints[mid] <= limit) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo - 1; k >= 0 && hints[k] >= floor; k--) {
      const b = hints[k];
      if (b > pos && b < text.length && SPACE.test(text[b - 1]) && !SPACE.test(text[b])) return b;
    }
  }
  // Candidates by kind, latest first; a break at b means the section is text.slice(pos, b).
  const goodFloor = pos + Math.floor(maxChars * 0.8);
  let sentenceHigh = -1;
  let sentenceLow = -1;
  let goodSpace = -1;
  let spaceHigh = -1;
  let spaceLow = -1;
  let soft = -1;
  for (let b = limit; b > pos; b--) {
    const high = b >= floor;
    const prev = text[b - 1];
    const next = text[b];
    const isSentence =
      (prev === "\n" && next !== "\n") ||
      (!SPACE.test(next) && SPACE.test(prev) && endsSentenceBefore(text, b)) ||
      (/[。！？]/.test(prev) && !/[。！？」』）)\s]/.test(next));
    if (isSentence) {
      if (high) {
        sentenceHigh = b;
        break;
      }
      if (sentenceLow < 0) sentenceLow = b;
    }
    if (SPACE.test(prev) && !SPACE.test(next)) {
      if (high && spaceHigh < 0) spaceHigh = b;
      if (!high && spaceLow < 0) spaceLow = b;
      if (goodSpace < 0 && b >= goodFloor && GOOD_NEXT_WORD.test(text.slice(b, b + 8))) goodSpace = b;
    }
    if (soft < 0 && SOFT_BREAK.test(prev) && !SPACE.test(next)) soft = b;
    if (!high && spaceHigh >= 0) break;
  }
  let b = [sentenceHigh, goodSpace, spaceHigh, sentenceLow, spaceLow, soft].find((c) => c > pos) ?? limit;
  // Never split a surrogate pair.
  if (b < text.length && b > pos + 1 && isLowSurrogate(text.charCodeAt(b))) b--;
  return b;
}

/** Whether the run of spaces ending at `b` follows sentence-ending punctuation (and closing quotes). */
function endsSentenceBefore(text: string, b: number): boolean {
  let i = b - 1;
  while (i >= 0 && SPACE.test(text[i])) i--;
  while (i >= 0 && /["'”’」』)）\]]/.test(text[i])) i--;
  return i >= 0 && SENTENCE_END.test(text[i]);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Start of the read-only context: ≤ overlap chars before pos, moved forward to a word start. */
function contextStartFor(text: string, pos: number, overlap: number, prevStart: number): number {
  if (overlap === 0) return pos;
  let s = Math.max(prevStart, pos - overlap);
  if (s > prevStart && !SPACE.test(text[s - 1] ?? " ")) {
    // Move to the next word start when one exists in the window; CJK text has none, keep as is.
    const rel = text.slice(s, pos).search(/\s\S/);
    if (rel >= 0) s += rel + 1;
  }
  if (s < pos && isLowSurrogate(text.charCodeAt(s))) s++;
  return s;
}
