/**
 * Word times where the speech engine gives none (Whisper through the binding, a plain-text server, a
 * segment the user edited): the segment's time spread over its words in proportion to their length,
 * each marked `approximate`. Words come from ICU (Intl.Segmenter), so Japanese and Chinese get words
 * too; punctuation stays with the word before it, so the words joined give the segment's text back.
 * Pure.
 */
import { segmenter } from "./language/segmenter.ts";
import type { TranscriptSegment, TranscriptWord } from "./speech.ts";

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The words of a text, each with what follows it up to the next word (spaces, punctuation). */
export function wordPieces(text: string, language: string): string[] {
  const pieces: string[] = [];
  let lead = "";
  for (const part of segmenter(language || "en", "word").segment(text)) {
    if (part.isWordLike) pieces.push(lead + part.segment);
    else if (pieces.length) pieces[pieces.length - 1] += part.segment;
    else lead += part.segment;
    if (part.isWordLike) lead = "";
  }
  if (lead && pieces.length === 0 && lead.trim()) pieces.push(lead);
  return pieces;
}

/** The segment's words with times spread over its span by length (`approximate: true`). */
export function approximateWords(
  segment: Pick<TranscriptSegment, "start" | "end" | "text">,
  language: string,
): TranscriptWord[] {
  const pieces = wordPieces(segment.text, language);
  const weight = (p: string) => Math.max(1, p.trim().length);
  const total = pieces.reduce((t, p) => t + weight(p), 0);
  const span = Math.max(0, segment.end - segment.start);
  let at = 0;
  return pieces
    .map((p) => {
      const start = segment.start + (span * at) / total;
      at += weight(p);
      return {
        start: round3(start),
        end: round3(segment.start + (span * at) / total),
        text: p.trim(),
        approximate: true,
      };
    })
    .filter((w) => w.text);
}

/** Whether a segment's word times still belong to its text (the words, joined, spell its letters). */
export function wordsMatch(segment: Pick<TranscriptSegment, "text" | "words">): boolean {
  if (!segment.words?.length) return false;
  // Servers give words without their punctuation: compare the letters.
  const squash = (s: string) => s.replace(/[\s\p{P}]+/gu, "").toLowerCase();
  return squash(segment.words.map((w) => w.text).join("")) === squash(segment.text);
}

/** The segment with word times: its own where they still match its text, else approximate ones. */
export function withWords<T extends TranscriptSegment>(segment: T, language: string): T {
  if (wordsMatch(segment)) return segment;
  return { ...segment, words: approximateWords(segment, language) };
}
