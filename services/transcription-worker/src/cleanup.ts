/**
 * Whisper's known failure modes, removed from a chunk's segments (pure functions):
 * - text invented over non-speech: closing phrases and subtitle credits learnt from video subtitles
 *   ("Thank you.", "ご視聴ありがとうございました", "Subtitles by the Amara.org community"), and any
 *   segment that lies entirely outside the speech the VAD found;
 * - repetition loops: a word or phrase repeated over and over inside a segment, or the same segment
 *   again and again.
 * (The third, a wrong language auto-detected on a short clip, is handled by detecting once on the
 * longest speech: handlers/transcribe.ts.)
 */
import type { TranscriptSegment } from "@kikitori/shared";

export interface Span {
  start: number;
  end: number;
}

/** Never said in an interview: subtitle credits and channel outros. Dropped wherever they appear. */
const ALWAYS = [
  /amara\.org/,
  /^subtitles? (by|created by|provided by)\b/,
  /^(please )?(like and )?subscribe\b/,
  /^字幕/,
  /^(sous-titr|sottotitoli|untertitel (im auftrag|von|der amara))/,
  /^(请不吝点赞|請不吝點贊|訂閱|订阅)/,
  /^(продолжение следует|субтитры (сделал|создавал|делал))/,
];

/** Said in real speech too, but invented by Whisper at the end of silence: dropped over non-speech. */
const OVER_SILENCE = new Set(
  [
    "thank you",
    "thank you very much",
    "thanks for watching",
    "thank you for watching",
    "thanks for listening",
    "bye",
    "you",
    "ご視聴ありがとうございました",
    "ありがとうございました",
    "おやすみなさい",
    "谢谢观看",
    "謝謝觀看",
    "感谢观看",
    "vielen dank",
    "danke",
    "merci",
    "gracias",
    "grazie",
    "obrigado",
    "спасибо",
    "спасибо за внимание",
    "감사합니다",
    "시청해주셔서 감사합니다",
  ].map(normalize),
);

function normalize(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Seconds of `seg` covered by speech (spans padded by `pad` each side). */
function speechOverlap(seg: Span, speech: readonly Span[], pad = 0.3): number {
  let total = 0;
  for (const s of speech) {
    const a = Math.max(seg.start, s.start - pad);
    const b = Math.min(seg.end, s.end + pad);
    if (b > a) total += b - a;
  }
  return total;
}

/** True when Whisper most likely invented the segment (see the module comment). */
export function isHallucination(seg: TranscriptSegment, speech: readonly Span[] | null, isLast: boolean): boolean {
  const norm = normalize(seg.text);
  if (!norm) return true;
  if (ALWAYS.some((re) => re.test(norm))) return true;
  if (speech) {
    const covered = speechOverlap(seg, speech);
    if (covered === 0 && seg.end > seg.start) return true;
    const length = Math.max(0.01, seg.end - seg.start);
    if (OVER_SILENCE.has(norm) && covered / length < 0.5) return true;
    return false;
  }
  return isLast && OVER_SILENCE.has(norm);
}

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: "word" });

/**
 * Collapses a block of words repeated back to back (a loop) to one occurrence: a single word seen 5
 * or more times in a row, or a block of 2–20 words seen 3 or more times in a row. Works on any script
 * (Intl.Segmenter words, so Japanese and Chinese too); spaces and punctuation stay as they were.
 */
export function collapseRepeats(text: string): string {
  const tokens = [...wordSegmenter.segment(text)];
  // Units: each word with the non-word text after it.
  const units: Array<{ key: string; text: string }> = [];
  let lead = "";
  for (const t of tokens) {
    if (t.isWordLike) units.push({ key: t.segment.toLowerCase(), text: t.segment });
    else if (units.length) units[units.length - 1].text += t.segment;
    else lead += t.segment;
  }
  const out: typeof units = [];
  let i = 0;
  while (i < units.length) {
    let collapsed = false;
    for (let k = 1; k <= 20 && i + 2 * k <= units.length; k++) {
      const minRuns = k === 1 ? 5 : 3;
      let runs = 1;
      while (
        i + (runs + 1) * k <= units.length &&
        units.slice(i + runs * k, i + (runs + 1) * k).every((u, j) => u.key === units[i + j].key)
      ) {
        runs++;
      }
      if (runs >= minRuns) {
        const last = units.slice(i + (runs - 1) * k, i + runs * k);
        out.push(...units.slice(i, i + k - 1), last[k - 1]);
        i += runs * k;
        collapsed = true;
        break;
      }
    }
    if (!collapsed) out.push(units[i++]);
  }
  return (lead + out.map((u) => u.text).join("")).trim();
}

/**
 * A chunk's segments made clean: loops collapsed, the same text three or more times in a row kept
 * once, hallucinations dropped. `speech` are the VAD's spans in the same time base (null: unknown).
 */
export function cleanSegments(
  segments: readonly TranscriptSegment[],
  speech: readonly Span[] | null,
): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  let repeatOf = "";
  let repeats = 0;
  for (const [i, seg] of segments.entries()) {
    const text = collapseRepeats(seg.text.trim());
    const s = { ...seg, text };
    if (isHallucination(s, speech, i === segments.length - 1)) continue;
    const norm = normalize(text);
    repeats = norm === repeatOf ? repeats + 1 : 1;
    repeatOf = norm;
    if (repeats > 2) continue;
    out.push(s);
  }
  return out;
}
