/**
 * Quotes of a job (POST/GET /api/transcriptions/{jobId}/quotes, PATCH/DELETE …/quotes/{quoteId}): a
 * time range of the recording, whose text and speaker are cut out of the job's timed segments.
 *
 * How a range becomes text (quoteSpan, used by the gateway when a quote is saved and whenever it is
 * read, and by the page to turn a selection into a range): every segment is cut into tokens with a
 * place in its text and a time.
 * - Where the engine gave word times and the segment's text still holds those words in order, each
 *   word is a token with its own time.
 * - Otherwise (no word times, or an edited segment, whose word times were dropped) the times are
 *   estimated: the segment's time is spread over its text in proportion to the characters. The tokens
 *   are the words between spaces, or each character in languages written without spaces (ja, zh, th…),
 *   so a selection of a few Japanese characters is kept exactly.
 * A token belongs to the range when its middle lies inside it (when no middle does, e.g. a range
 * inside one long word, the tokens it overlaps). The quote's text is the stretch of the segment's own
 * text from its first to its last token (punctuation and spacing as written, whole words), the
 * segments joined by the language's rule (segmentsText). Its speaker is the one who says most of it.
 */
import { z } from "zod";
import { isSpacelessLanguage, spacingOf } from "./language/spacing.ts";
import type { TranscriptSegment } from "./speech.ts";

/** Longest quote, in seconds of the recording. */
export const QUOTE_SPAN_MAX_SECONDS = 600;
export const QUOTE_NOTE_MAX = 2000;
export const QUOTE_TAGS_MAX = 10;
export const QUOTE_TAG_MAX = 40;
/** Most quotes one job keeps (409 QUOTE_LIMIT_REACHED past it). */
export const QUOTES_PER_JOB_MAX = 1000;

/** Tags: trimmed, empty ones dropped, each once (case-insensitively, the first spelling kept). */
export const quoteTagsSchema = z
  .array(z.string().trim().max(QUOTE_TAG_MAX))
  .max(QUOTE_TAGS_MAX)
  .transform((tags) => {
    const seen = new Set<string>();
    return tags.filter((t) => {
      const key = t.toLocaleLowerCase();
      if (!t || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  });

const noteSchema = z.string().max(QUOTE_NOTE_MAX);

/** POST …/quotes. Whether `end` lies within the recording is checked against the job. */
export const createQuoteSchema = z
  .object({
    start: z.number().finite().min(0),
    end: z.number().finite().min(0),
    note: noteSchema.nullish(),
    tags: quoteTagsSchema.optional(),
  })
  .refine((q) => q.start < q.end, { message: "start must be before end", path: ["end"] })
  .refine((q) => q.end - q.start <= QUOTE_SPAN_MAX_SECONDS, {
    message: `a quote spans at most ${QUOTE_SPAN_MAX_SECONDS} seconds`,
    path: ["end"],
  });
export type CreateQuote = z.infer<typeof createQuoteSchema>;
export type CreateQuoteInput = z.input<typeof createQuoteSchema>;

/**
 * PATCH …/quotes/{quoteId}: the note ("" or null removes it), the tags, or `accept: true` to take the
 * quote's current text as the saved one (it is no longer marked changed).
 */
export const patchQuoteSchema = z
  .object({ note: noteSchema.nullish(), tags: quoteTagsSchema.optional(), accept: z.literal(true).optional() })
  .refine((p) => p.note !== undefined || p.tags !== undefined || p.accept !== undefined, {
    message: "give at least one of note, tags, accept",
  });
export type PatchQuote = z.infer<typeof patchQuoteSchema>;
export type PatchQuoteInput = z.input<typeof patchQuoteSchema>;

export const quoteSchema = z.object({
  id: z.string(),
  start: z.number(),
  end: z.number(),
  /** The speaker's name as the exports show it (the name given, else "Speaker n"); null: no speakers known. */
  speaker: z.string().nullable(),
  /** The words of the range in the transcript as it is now. */
  text: z.string(),
  note: z.string().nullable(),
  tags: z.array(z.string()),
  /** The transcript's words in the range changed since the quote was saved (savedText is what was saved). */
  stale: z.boolean(),
  savedText: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Quote = z.infer<typeof quoteSchema>;
export const quoteListSchema = z.object({ quotes: z.array(quoteSchema) });

/** A piece of a segment's text (characters from–to) and its time in the recording. */
export interface SpanToken {
  from: number;
  to: number;
  start: number;
  end: number;
}

/** The tokens of a segment's `text` (its current text, by default the segment's), in order. */
export function segmentTokens(
  seg: TranscriptSegment,
  language: string | null | undefined,
  text = seg.text,
): SpanToken[] {
  if (seg.words?.length && text === seg.text) {
    const words = wordTokens(seg.words, text);
    if (words) return words;
  }
  const pieces: Array<[number, number]> = [];
  if (isSpacelessLanguage(language)) {
    for (const m of text.matchAll(/\S/gu)) pieces.push([m.index, m.index + m[0].length]);
  } else {
    for (const m of text.matchAll(/\S+/gu)) pieces.push([m.index, m.index + m[0].length]);
  }
  const length = Math.max(1, text.length);
  const span = Math.max(0, seg.end - seg.start);
  return pieces.map(([from, to]) => ({
    from,
    to,
    start: seg.start + (span * from) / length,
    end: seg.start + (span * to) / length,
  }));
}

/** The words found in the text in order, with their times; null when one is not there (edited text). */
function wordTokens(words: NonNullable<TranscriptSegment["words"]>, text: string): SpanToken[] | null {
  const out: SpanToken[] = [];
  let cursor = 0;
  for (const w of words) {
    const word = w.text.trim();
    if (!word) continue;
    const at = text.indexOf(word, cursor);
    if (at < 0) return null;
    out.push({ from: at, to: at + word.length, start: w.start, end: Math.max(w.start, w.end) });
    cursor = at + word.length;
  }
  return out.length ? out : null;
}

/** The tokens of a range: those whose middle lies in it, else those overlapping it. */
function tokensIn(tokens: SpanToken[], start: number, end: number): SpanToken[] {
  const mid = tokens.filter((t) => {
    const m = (t.start + t.end) / 2;
    return m >= start && m <= end;
  });
  return mid.length ? mid : tokens.filter((t) => t.end > start && t.start < end);
}

/** A stretch of text widened to whole words (spaced scripts) or over the punctuation after it. */
function widen(text: string, from: number, to: number, language: string | null | undefined): [number, number] {
  let a = from;
  let b = to;
  if (spacingOf(language) === "words") {
    while (a > 0 && !/\s/u.test(text[a - 1])) a--;
    while (b < text.length && !/\s/u.test(text[b])) b++;
  } else {
    while (b < text.length && /[\p{Po}\p{Pe}\p{Pf}]/u.test(text[b])) b++;
  }
  return [a, b];
}

export interface QuoteSpan {
  text: string;
  /** The speaker id who says most of the text (by characters); null when the segments have none. */
  speaker: number | null;
}

/** The text and speaker of the range [start, end] of the segments (see the top of this file). Pure. */
export function quoteSpan(
  segments: readonly TranscriptSegment[],
  start: number,
  end: number,
  language: string | null | undefined,
): QuoteSpan {
  const pieces: string[] = [];
  const weight = new Map<number, number>();
  let lastSpeaker: number | undefined;
  for (const seg of segments) {
    const speaker = seg.speaker ?? lastSpeaker;
    lastSpeaker = speaker;
    if (seg.end < start || seg.start > end) continue;
    const tokens = tokensIn(segmentTokens(seg, language), start, end);
    if (!tokens.length) continue;
    const [from, to] = widen(seg.text, tokens[0].from, tokens[tokens.length - 1].to, language);
    const piece = seg.text.slice(from, to).trim();
    if (!piece) continue;
    pieces.push(piece);
    if (speaker !== undefined) weight.set(speaker, (weight.get(speaker) ?? 0) + piece.length);
  }
  let speaker: number | null = null;
  for (const [id, n] of weight) if (speaker === null || n > (weight.get(speaker) ?? 0)) speaker = id;
  return { text: pieces.join(isSpacelessLanguage(language) ? "" : " "), speaker };
}

/**
 * The time range of a selection of characters from–to inside a segment's current `text`: from the
 * start of its first token to the end of its last. Null when the selection holds no token.
 */
export function selectionRange(
  seg: TranscriptSegment,
  text: string,
  from: number,
  to: number,
  language: string | null | undefined,
): { start: number; end: number } | null {
  const hit = segmentTokens(seg, language, text).filter((t) => t.to > from && t.from < to);
  if (!hit.length) return null;
  const round = (s: number) => Math.round(s * 1000) / 1000;
  return { start: round(hit[0].start), end: round(hit[hit.length - 1].end) };
}

/** A word as compared across the two texts: lower case, letters and digits only. */
const foldWord = (s: string) => s.toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

/** Most transcript words skipped between two words of the passage (fillers, repetitions, false starts). */
const LOCATE_GAP = 3;
/** Longest passage looked for, in words (or characters in languages without spaces). */
const LOCATE_MAX_WORDS = 400;

interface FoldedWord {
  word: string;
  start: number;
  end: number;
}

/** The transcript's words, folded, with their times: kept per segment list (a page asks again while a selection is dragged). */
const wordCache = new WeakMap<readonly TranscriptSegment[], { language: string; words: FoldedWord[] }>();
function transcriptWords(segments: readonly TranscriptSegment[], language: string | null | undefined): FoldedWord[] {
  const hit = wordCache.get(segments);
  if (hit && hit.language === (language ?? "")) return hit.words;
  const words = segments.flatMap((seg) =>
    segmentTokens(seg, language)
      .map((t) => ({ word: foldWord(seg.text.slice(t.from, t.to)), start: t.start, end: t.end }))
      .filter((w) => w.word),
  );
  wordCache.set(segments, { language: language ?? "", words });
  return words;
}

/**
 * Where a passage of the interview text (cleaned up: fillers dropped, punctuation set; speaker labels
 * at line starts left out) was said: the time range of the transcript's words that match its words in order, allowing a few transcript
 * words between two of them, with at least 80% of the passage's words found. The closest match wins
 * (most words found, then the shortest stretch). Null when it is not found. Pure.
 */
export function locateQuote(
  segments: readonly TranscriptSegment[],
  passage: string,
  language: string | null | undefined,
): { start: number; end: number } | null {
  const spaceless = isSpacelessLanguage(language);
  // Speaker labels at the start of the interview's lines ("Ben: …", "田中：…") were not said.
  const said = passage.replace(/^[^\S\n]*[^\n:：]{1,40}[:：]/gmu, " ");
  const want = (spaceless ? [...said] : said.split(/\s+/u)).map(foldWord).filter(Boolean).slice(0, LOCATE_MAX_WORDS);
  if (!want.length) return null;
  const words = transcriptWords(segments, language);
  let best: { found: number; from: number; to: number } | null = null;
  for (let i = 0; i < words.length; i++) {
    if (words[i].word !== want[0]) continue;
    let at = i;
    let found = 1;
    for (let k = 1; k < want.length; k++) {
      const next = words.slice(at + 1, at + 2 + LOCATE_GAP).findIndex((w) => w.word === want[k]);
      if (next < 0) continue;
      at += next + 1;
      found++;
    }
    const better = !best || found > best.found || (found === best.found && at - i < best.to - best.from);
    if (better) best = { found, from: i, to: at };
  }
  if (!best || best.found < Math.ceil(want.length * 0.8)) return null;
  const round = (s: number) => Math.round(s * 1000) / 1000;
  return { start: round(words[best.from].start), end: round(words[best.to].end) };
}
