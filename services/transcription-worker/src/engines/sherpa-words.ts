import type { EngineSegment } from "./port.ts";

/** One window's answer from a sherpa-onnx offline recognizer (`getResult`), the fields used here. */
export interface SherpaResult {
  tokens: string[];
  /** Start of each token, seconds from the window's start. */
  timestamps: number[];
  /** Length of each token (TDT models), seconds; empty or zeros where the model gives none. */
  durations?: number[];
}

/** Han, kana and Hangul: a token in these scripts is a word unit of its own. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Punctuation only (it joins the word before it). */
const PUNCT = /^[\p{P}\p{S}]+$/u;
/** Ends a sentence: a segment ends after it. */
const SENTENCE_END = /[.!?。！？…]$/u;
/** SenseVoice's tags (<|ja|>, <|NEUTRAL|>, <|Speech|>, <|withitn|>) and the unknown piece. */
const TAG = /^(<\|[^|]*\|>|<unk>|<blk>|<blank>)$/;
/** A pause this long between words ends a segment. */
const PAUSE_SECONDS = 0.8;
/** A segment longer than this ends at the next word (subtitles and quotes want short pieces). */
const MAX_SEGMENT_SECONDS = 20;
/** The last token's length when the model gives none and nothing follows it. */
const LAST_TOKEN_SECONDS = 0.4;

export interface TimedWord {
  start: number;
  end: number;
  text: string;
  /** The text before it in the running text: "" (joined), " " (a space). */
  gap: string;
}

/**
 * The words of one window: BPE pieces joined at their word starts (sherpa-onnx gives SentencePiece's
 * "▁" as a leading space), each CJK character a word, punctuation joined to the word before it.
 * Times are shifted by `offset` and kept inside [offset, offset + length]. Pure.
 */
export function wordsOfResult(r: SherpaResult, offset: number, length: number): TimedWord[] {
  const end = offset + length;
  const at = (t: number) => Math.min(end, Math.max(offset, offset + t));
  const words: TimedWord[] = [];
  const n = Math.min(r.tokens.length, r.timestamps.length);
  for (let i = 0; i < n; i++) {
    const raw = r.tokens[i].replaceAll("▁", " ");
    const piece = raw.trim();
    if (!piece || TAG.test(piece)) continue;
    const start = at(r.timestamps[i]);
    const dur = r.durations?.[i] ?? 0;
    const next = i + 1 < n ? at(r.timestamps[i + 1]) : end;
    const stop = Math.max(start, dur > 0 ? at(r.timestamps[i] + dur) : Math.min(next, start + LAST_TOKEN_SECONDS));
    const prev = words[words.length - 1];
    const spaced = raw.startsWith(" ");
    const cjk = CJK.test(piece);
    const last = prev?.text.slice(-1) ?? "";
    const continues = !spaced && !cjk && /[\p{L}\p{N}]/u.test(last) && !CJK.test(last);
    const joins = prev && (PUNCT.test(piece) || continues);
    if (joins) {
      prev.text += piece;
      prev.end = Math.max(prev.end, stop);
    } else {
      words.push({ start, end: stop, text: piece, gap: prev && !cjk ? " " : "" });
    }
  }
  return words;
}

/**
 * Segments from timed words: a segment ends after a sentence's end, before a pause of PAUSE_SECONDS
 * or before a word that would make it longer than MAX_SEGMENT_SECONDS; its start and end are its first word's start and last word's end, its text the
 * words with their gaps, trimmed. Pure.
 */
export function segmentsOfWords(words: TimedWord[]): EngineSegment[] {
  const out: EngineSegment[] = [];
  let cur: TimedWord[] = [];
  const flush = () => {
    if (cur.length === 0) return;
    const text = cur
      .map((w, i) => (i === 0 ? w.text : w.gap + w.text))
      .join("")
      .trim();
    out.push({
      start: cur[0].start,
      end: cur[cur.length - 1].end,
      text,
      words: cur.map((w) => ({ start: w.start, end: w.end, text: w.text })),
    });
    cur = [];
  };
  for (const w of words) {
    const prev = cur[cur.length - 1];
    if (prev && (w.start - prev.end >= PAUSE_SECONDS || w.end - cur[0].start > MAX_SEGMENT_SECONDS)) flush();
    cur.push(w);
    if (SENTENCE_END.test(w.text)) flush();
  }
  flush();
  return out;
}

/** Windows of at most `max` seconds covering `duration` (the last one takes the rest). Pure. */
export function windowsOf(duration: number, max: number): Array<{ start: number; end: number }> {
  const k = Math.max(1, Math.ceil(duration / max));
  const step = duration / k;
  return Array.from({ length: k }, (_, i) => ({ start: i * step, end: i === k - 1 ? duration : (i + 1) * step }));
}
