/** The words of a transcript line on the job page: where each one sits in the text, and which one is playing. Pure. */
import type { TranscriptWord } from "@kikitori/shared";

/** A piece of a line's text: a word (its index in the line's words) or what lies between words. */
export type TextRun = { text: string; word: number | null };

/** Where `needle` is in `text` from `from` on: as written, else ignoring case (same-length folds only). */
function findFrom(text: string, lower: string | null, needle: string, from: number): number {
  const exact = text.indexOf(needle, from);
  if (exact >= 0 || lower === null) return exact;
  return lower.indexOf(needle.toLowerCase(), from);
}

/**
 * The line's text cut into runs, each word of `words` found in order in the text (its own run), the
 * spaces and punctuation between them as runs of their own: the runs joined give the text back exactly.
 * A word not found after the previous one (an engine's spelling differs) has no run; the text stays.
 */
export function wordRuns(text: string, words: readonly Pick<TranscriptWord, "text">[]): TextRun[] {
  const lowered = text.toLowerCase();
  const lower = lowered.length === text.length ? lowered : null;
  const runs: TextRun[] = [];
  let at = 0;
  words.forEach((w, i) => {
    const needle = w.text.trim();
    if (!needle) return;
    const found = findFrom(text, lower, needle, at);
    if (found < 0) return;
    if (found > at) runs.push({ text: text.slice(at, found), word: null });
    runs.push({ text: text.slice(found, found + needle.length), word: i });
    at = found + needle.length;
  });
  if (at < text.length) runs.push({ text: text.slice(at), word: null });
  return runs;
}

/**
 * Index of the word playing at `time` in a line's words (in order of start): the last one starting at
 * or before it (a binary search), or -1 before the first word or once the line has ended (`end`).
 */
export function wordAt(words: readonly Pick<TranscriptWord, "start">[], time: number, end: number): number {
  if (time >= end) return -1;
  let lo = 0;
  let hi = words.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid].start <= time + 0.05) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
