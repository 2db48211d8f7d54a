/**
 * The fidelity view of a job: how far the corrected interview can be traced back to what was said.
 *
 * - A word-level diff of the raw transcript against the corrected interview (jsdiff's diffArrays over
 *   the language toolkit's word tokens, so text without spaces — ja, zh, th — is split into words too).
 * - Content words: the toolkit's topic words (not function words), not hesitation fillers and not
 *   turn labels ("Anna:"); any token with a digit always counts (numbers are what a journalist
 *   checks first).
 * - A corrected content word is traceable when the raw transcript has it: the same word, or (in
 *   languages with spaces) a word sharing a stem-length prefix ("says" / "said" do not match, "studies"
 *   / "study" do); in text without spaces, the word occurring anywhere in the raw text.
 * - Flags: corrected sentences with content words that cannot be traced (possibly invented), and raw
 *   passages (timed segments when given) whose content words mostly did not make it into the
 *   interview (possibly dropped).
 * - The figure: the share of the interview's content words traceable to the raw transcript.
 */
import { diffArrays } from "diff";
import { z } from "zod";
import { isSpacelessLanguage, normWord, splitSentences, tokenize, type WordToken } from "./language/index.ts";

export const fidelityOpSchema = z.object({
  /** same: in both; removed: only in the raw transcript; added: only in the corrected interview. */
  op: z.enum(["same", "removed", "added"]),
  text: z.string(),
});
export type FidelityOp = z.infer<typeof fidelityOpSchema>;

export const fidelityReportSchema = z.object({
  /** Share (0–1) of the interview's content words found in the raw transcript; null without an interview. */
  figure: z.number().nullable(),
  contentWords: z.number().int(),
  tracedWords: z.number().int(),
  /** The word-level diff, raw → corrected (null when the texts are too far apart to diff in time). */
  diff: z.array(fidelityOpSchema).nullable(),
  /** Corrected sentences with content words the raw transcript does not have. */
  invented: z.array(
    z.object({
      sentence: z.string(),
      /** Character offsets of the sentence in the corrected interview. */
      start: z.number().int(),
      end: z.number().int(),
      words: z.array(z.string()),
    }),
  ),
  /** Raw passages whose content words mostly did not reach the interview. */
  dropped: z.array(
    z.object({
      text: z.string(),
      /** Start of the passage in seconds of the recording (timed segments), else null. */
      startSeconds: z.number().nullable(),
      words: z.array(z.string()),
    }),
  ),
});
export type FidelityReport = z.infer<typeof fidelityReportSchema>;

export interface FidelityOptions {
  /** Language of the texts (word segmentation and function words, from the language toolkit). */
  language: string;
  /** Speaker names that label turns in the corrected text ("Anna: …"); they are not content. */
  speakerNames?: string[];
  /** Timed raw passages; without them the raw text's sentences are the passages. */
  segments?: Array<{ start: number; text: string }>;
  /** Most milliseconds the word diff may take (default 3 s); past it the diff is left out. */
  diffTimeoutMs?: number;
}

/** Hesitations in the languages Whisper writes them in; never content. */
const FILLERS = new Set(
  "um umm uh uhh uhm er erm ah hmm hm mm mhm eh äh ähm euh euhm eeh えー えっと あのー うーん 嗯 呃 那个 额 음 어".split(
    " ",
  ),
);
const DIGIT = /\p{Nd}/u;
const MIN_PREFIX = 4;

/** Content: the toolkit's topic words, plus any number (a date or an amount is what gets checked first). */
const isContent = (t: WordToken) => !FILLERS.has(t.norm) && (t.content || DIGIT.test(t.norm));

/** Character ranges of the turn labels ("Anna Berg:" at a line start) of the corrected text. */
function labelRanges(text: string, names: string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const escaped = names
    .filter((n) => n.trim())
    .map((n) => n.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .sort((a, b) => b.length - a.length);
  if (!escaped.length) return out;
  const re = new RegExp(`^[ \\t]*(?:${escaped.join("|")})[ \\t]*[:：]`, "gmu");
  for (const m of text.matchAll(re)) out.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  return out;
}

export function fidelityReport(raw: string, corrected: string | null, opts: FidelityOptions): FidelityReport {
  const { language } = opts;
  const spaceless = isSpacelessLanguage(language);
  if (corrected === null) {
    return { figure: null, contentWords: 0, tracedWords: 0, diff: null, invented: [], dropped: [] };
  }
  const rawTokens = tokenize(raw, language);
  const traceable = wordMatcher(
    rawTokens.map((t) => t.norm),
    normWord(raw, language),
    spaceless,
  );

  // Invented: per corrected sentence, the content words the raw text cannot account for.
  const labels = labelRanges(corrected, opts.speakerNames ?? []);
  const isLabel = (t: WordToken) => labels.some(([a, b]) => t.start >= a && t.end <= b);
  const corrTokens = tokenize(corrected, language);
  let contentWords = 0;
  let tracedWords = 0;
  const invented: FidelityReport["invented"] = [];
  let k = 0;
  for (const s of splitSentences(corrected, language, Number.POSITIVE_INFINITY)) {
    const missing: string[] = [];
    for (; k < corrTokens.length && corrTokens[k].start < s.end; k++) {
      const t = corrTokens[k];
      if (!isContent(t) || isLabel(t)) continue;
      contentWords++;
      if (traceable(t.norm)) tracedWords++;
      else if (!missing.includes(t.surface)) missing.push(t.surface);
    }
    if (missing.length > 0) invented.push({ sentence: s.text, start: s.start, end: s.end, words: missing });
  }

  // Dropped: raw passages whose content words mostly do not occur in the interview.
  const inCorrected = wordMatcher(
    corrTokens.map((t) => t.norm),
    normWord(corrected, language),
    spaceless,
  );
  const passages =
    opts.segments?.map((s) => ({ text: s.text.trim(), startSeconds: s.start as number | null })) ??
    splitSentences(raw, language, Number.POSITIVE_INFINITY).map((s) => ({ text: s.text, startSeconds: null }));
  const dropped: FidelityReport["dropped"] = [];
  for (const p of passages) {
    const content = tokenize(p.text, language).filter(isContent);
    if (content.length < 2) continue;
    const lost = content.filter((t) => !inCorrected(t.norm));
    if (lost.length / content.length > 0.5) {
      dropped.push({ text: p.text, startSeconds: p.startSeconds, words: [...new Set(lost.map((t) => t.surface))] });
    }
  }

  const diff = wordDiff(rawTokens, corrTokens, spaceless ? "" : " ", opts.diffTimeoutMs ?? 3000);
  const figure = contentWords === 0 ? 1 : Math.round((tracedWords / contentWords) * 1000) / 1000;
  return { figure, contentWords, tracedWords, diff, invented, dropped };
}

/**
 * Whether a word occurs in a text: the same word, or in text with spaces an inflected form (a shared
 * prefix of at least 4 letters that leaves at most 3 letters of the shorter word: "study"/"studies",
 * "interview"/"interviews", not "said"/"says"); in text without spaces, anywhere in the text.
 */
function wordMatcher(words: string[], text: string, spaceless: boolean): (w: string) => boolean {
  const exact = new Set(words);
  const buckets = new Map<string, string[]>();
  for (const w of exact) {
    if (w.length < MIN_PREFIX) continue;
    const key = w.slice(0, MIN_PREFIX);
    const list = buckets.get(key);
    if (list) list.push(w);
    else buckets.set(key, [w]);
  }
  return (w) => {
    if (exact.has(w)) return true;
    if (spaceless) return text.includes(w);
    if (w.length < MIN_PREFIX) return false;
    for (const r of buckets.get(w.slice(0, MIN_PREFIX)) ?? []) {
      let cp = MIN_PREFIX;
      while (cp < w.length && cp < r.length && w[cp] === r[cp]) cp++;
      if (cp >= Math.max(MIN_PREFIX, Math.min(w.length, r.length) - 3)) return true;
    }
    return false;
  };
}

function wordDiff(a: WordToken[], b: WordToken[], joiner: string, timeout: number): FidelityOp[] | null {
  const changes = diffArrays(a, b, { comparator: (x: WordToken, y: WordToken) => x.norm === y.norm, timeout });
  if (!changes) return null;
  const ops: FidelityOp[] = [];
  for (const c of changes) {
    const op = c.added ? "added" : c.removed ? "removed" : "same";
    const text = (c.value as WordToken[]).map((t) => t.surface).join(joiner);
    const last = ops.at(-1);
    if (last && last.op === op) last.text += joiner + text;
    else ops.push({ op, text });
  }
  return ops;
}
