/** A transcript line split in two (POST /api/transcriptions/{jobId}/segments/{index}/split). Pure. */
import { z } from "zod";
import type { TranscriptSegment } from "./speech.ts";

/** POST /api/transcriptions/{jobId}/segments/{index}/split: split a line at a character offset. */
export const splitSegmentSchema = z.object({
  version: z.number().int().min(1),
  /** Character offset in the segment's text where the second line begins. */
  at: z.number().int().min(1),
  /** Who says the second line (default: the same speaker). */
  speaker: z.number().int().min(0).max(19).optional(),
});
export type SplitSegment = z.infer<typeof splitSegmentSchema>;

/**
 * A segment split in two at a character offset (cut at the nearest word boundary for spaced text).
 * The time is divided at the word times where the segment has them, else in proportion to the
 * characters. Throws a RangeError for an offset that leaves either part empty.
 */
export function splitSegment(
  segment: TranscriptSegment,
  at: number,
  speaker: number | undefined,
): [TranscriptSegment, TranscriptSegment] {
  const text = segment.text;
  // Inside a word of spaced text: at the nearest space.
  if (/\S/.test(text[at - 1] ?? "") && /\S/.test(text[at] ?? "") && /\s/.test(text)) {
    const left = text.lastIndexOf(" ", at);
    const right = text.indexOf(" ", at);
    if (left < 0 && right >= 0) at = right;
    else if (right < 0 && left >= 0) at = left;
    else if (left >= 0 && right >= 0) at = at - left <= right - at ? left : right;
  }
  const head = text.slice(0, at).trimEnd();
  const tail = text.slice(at).trimStart();
  if (!head.trim() || !tail.trim()) throw new RangeError("both parts of a split line need words");
  let cut = segment.start + ((segment.end - segment.start) * head.length) / Math.max(1, head.length + tail.length);
  let headWords: TranscriptSegment["words"];
  let tailWords: TranscriptSegment["words"];
  if (segment.words?.length) {
    // The words whose letters make up the first part (text with or without spaces alike).
    const headLetters = head.replace(/\s+/g, "").length;
    let letters = 0;
    let wordsBefore = 0;
    while (wordsBefore < segment.words.length && letters < headLetters) {
      letters += segment.words[wordsBefore].text.replace(/\s+/g, "").length;
      wordsBefore++;
    }
    if (letters !== headLetters) wordsBefore = 0;
    headWords = segment.words.slice(0, wordsBefore);
    tailWords = segment.words.slice(wordsBefore);
    if (headWords.length && tailWords.length) cut = tailWords[0].start;
    else {
      headWords = undefined;
      tailWords = undefined;
    }
  }
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const first: TranscriptSegment = { ...segment, end: round(cut), text: head };
  const second: TranscriptSegment = { ...segment, start: round(cut), text: tail };
  delete first.words;
  delete second.words;
  if (headWords && tailWords) {
    first.words = headWords;
    second.words = tailWords;
  }
  if (speaker !== undefined) second.speaker = speaker;
  return [first, second];
}
