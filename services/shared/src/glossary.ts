/**
 * The glossary: names and terms the user spells one way ("Honey Cake", "Apprentices"). It is kept on
 * the account (GET/PUT /api/account/glossary) or given with an upload (one term per line), stored on
 * the job it was used for, and used three ways: as Whisper's initial prompt (whisperPrompt), in the
 * text worker (applyGlossary on the transcript it corrects and on the interview text), and in
 * the fidelity view (a glossary spelling is not a changed word).
 *
 * applyGlossary writes each term with the glossary's spelling where the text has it
 * - in another case or spacing ("honey cake", "honeycake", "HONEY-CAKE" → "Honey Cake");
 * - for terms of 5+ letters, within a small edit distance (1 for 5–7 letters, 2 for 8+) of a whole
 *   word (single-word terms) or of a run of words sharing at least one word with the term (terms of
 *   several words), unless the word found is a common word of the language (glossary-words.ts), only
 *   differs from the term by an ending ("apprentice" is not "Apprentices"), or the language has no
 *   list of common words (then case and spacing fixes only);
 * - never inside another word ("pre-honeycake", "honeycakes" stay as they are);
 * - in Japanese, Chinese and Thai (no spaces between words): the same characters in another width or
 *   case only (NFKC, lower case), e.g. "ＡＢＣ社" → "ABC社".
 * Terms with other signs than letters, digits, spaces, hyphens and apostrophes ("C++", "AT&T") are
 * fixed where they stand in another case only.
 */
import { z } from "zod";
import { commonWords } from "./glossary-words.ts";
import { isSpacelessLanguage } from "./language/spacing.ts";
import { stopwords } from "./language/stopwords.ts";

export const GLOSSARY_MAX_TERMS = 500;
export const GLOSSARY_TERM_MAX = 100;
/** Longest term key (letters and digits) matched within an edit distance; longer ones match exactly. */
const FUZZY_KEY_MAX = 32;

/** Terms as the user typed them: trimmed, inner spaces collapsed, empty ones dropped, the first of case-insensitive duplicates kept. */
export function normalizeTerms(terms: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of terms) {
    const term = raw.replace(/\s+/gu, " ").trim();
    const key = term.normalize("NFKC").toLowerCase();
    if (!term || seen.has(key)) continue;
    seen.add(key);
    out.push(term);
  }
  return out;
}

/** The limits, checked on the normalized terms. */
const termLimits = z
  .array(z.string().max(GLOSSARY_TERM_MAX, `A term may have at most ${GLOSSARY_TERM_MAX} characters`))
  .max(GLOSSARY_MAX_TERMS, `A glossary may have at most ${GLOSSARY_MAX_TERMS} terms`);

/** A list of terms (normalized), at most 500 of at most 100 characters each. */
export const glossaryTermsSchema = z
  .array(z.string().max(10_000))
  .max(10_000)
  .transform(normalizeTerms)
  .pipe(termLimits);

/** PUT /api/account/glossary: the account's whole glossary. */
export const glossaryBodySchema = z.object({ terms: glossaryTermsSchema });
/** GET and PUT /api/account/glossary answer with the glossary as stored. */
export const glossaryResponseSchema = z.object({ terms: z.array(z.string()) });
export type Glossary = z.infer<typeof glossaryResponseSchema>;

/** A stored glossary (a JSON column) as a list of strings; anything else reads as empty. */
export const glossaryOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((t): t is string => typeof t === "string") : [];

/** Glossary text as typed in a form: one term per line. */
export function termsFromLines(text: string): string[] {
  return normalizeTerms(text.split(/\r\n|\r|\n/u));
}

/**
 * The upload's `glossary` field (one term per line): null when absent or blank (the account's
 * glossary is used), else its terms under the same limits as the account's.
 */
export const glossaryFieldSchema = z
  .string()
  .max(GLOSSARY_MAX_TERMS * (GLOSSARY_TERM_MAX + 2) * 2)
  .optional()
  .transform((v) => termsFromLines(v ?? ""))
  .pipe(termLimits)
  .transform((terms) => (terms.length ? terms : null));

/** One glossary fix: `from` (the text as it stood, at start–end of the original) became `to`. */
export interface GlossaryFix {
  from: string;
  to: string;
  start: number;
  end: number;
}

export interface GlossaryResult {
  text: string;
  fixes: GlossaryFix[];
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const PLAIN_TERM = /^[\p{L}\p{M}\p{N}\s'’-]+$/u;

const ASCII = /^\p{ASCII}*$/u;
const fold = (s: string) => (ASCII.test(s) ? s.toLowerCase() : s.normalize("NFKC").toLowerCase());

/** Whether text[from, to) only joins two words of one term: spaces, hyphens, apostrophes. */
function joins(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 45 && c !== 39 && c !== 0x2019 && c !== 9 && c !== 10 && c !== 13 && c !== 0xa0) return false;
  }
  return true;
}

interface Token {
  start: number;
  end: number;
  norm: string;
}

interface Term {
  text: string;
  words: string[];
  key: string;
  /** Edit distance allowed (0: case and spacing only). */
  distance: number;
}

/** A built glossary: terms indexed for matching (cached by the term list, so a worker builds it once). */
interface Index {
  byKey: Map<string, Term>;
  maxKeyLength: number;
  maxWords: number;
  /** Single-word terms by their deletion variants (symmetric delete search). */
  deletions: Map<string, Term[]>;
  /** Word lengths (in UTF-16 units) within reach of a single-word term's edit distance. */
  nearLengths: Set<number>;
  /** Terms of several words by each of their words. */
  byWord: Map<string, Term[]>;
  literal: RegExp | null;
}

/** Every string made from `s` by deleting up to `d` characters (s itself included). */
function deletionVariants(s: string, d: number, out = new Set<string>()): Set<string> {
  out.add(s);
  if (d === 0 || s.length <= 1) return out;
  for (let i = 0; i < s.length; i++) {
    const v = s.slice(0, i) + s.slice(i + 1);
    if (!out.has(v)) deletionVariants(v, d - 1, out);
  }
  return out;
}

/** Optimal string alignment distance, or d + 1 once it is certainly more than `d`. */
export function editDistance(a: string, b: string, d: number): number {
  if (Math.abs(a.length - b.length) > d) return d + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > d) return d + 1;
    prev2 = prev;
    prev = cur;
  }
  return Math.min(prev[b.length], d + 1);
}

/** The last few glossaries built (a job applies its glossary to the transcript, then to the interview text). */
const INDEXES = new Map<string, Index>();

function buildIndex(terms: readonly string[], fuzzy: boolean): Index {
  const cacheKey = `${fuzzy ? 1 : 0}\u0000${terms.join("\u0000")}`;
  const hit = INDEXES.get(cacheKey);
  if (hit) return hit;
  const index: Index = {
    byKey: new Map(),
    maxKeyLength: 0,
    maxWords: 0,
    deletions: new Map(),
    nearLengths: new Set(),
    byWord: new Map(),
    literal: null,
  };
  const literals: string[] = [];
  for (const text of normalizeTerms(terms)) {
    const words = [...fold(text).matchAll(WORD)].map((m) => m[0]);
    const key = words.join("");
    if (!PLAIN_TERM.test(text) || key.length < 2) {
      literals.push(text);
      continue;
    }
    const letters = [...key].length;
    const distance = !fuzzy || letters < 5 || letters > FUZZY_KEY_MAX ? 0 : letters <= 7 ? 1 : 2;
    const term: Term = { text, words, key, distance };
    if (index.byKey.has(key)) continue;
    index.byKey.set(key, term);
    index.maxKeyLength = Math.max(index.maxKeyLength, key.length);
    index.maxWords = Math.max(index.maxWords, words.length);
    if (!distance) continue;
    if (words.length === 1) {
      for (let l = key.length - distance; l <= key.length + distance; l++) index.nearLengths.add(l);
      for (const v of deletionVariants(key, distance)) {
        const list = index.deletions.get(v);
        if (list) list.push(term);
        else index.deletions.set(v, [term]);
      }
    } else {
      for (const w of new Set(words)) {
        const list = index.byWord.get(w);
        if (list) list.push(term);
        else index.byWord.set(w, [term]);
      }
    }
  }
  if (literals.length) {
    const alternatives = literals
      .sort((a, b) => b.length - a.length)
      .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("|");
    index.literal = new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{M}\\p{N}])`, "giu");
  }
  if (INDEXES.size >= 8) INDEXES.delete(INDEXES.keys().next().value as string);
  INDEXES.set(cacheKey, index);
  return index;
}

/** Whether a match at start–end would sit inside a longer word ("pre-honeycake", "o'honey"). */
function insideWord(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 2), start);
  const after = text.slice(end, end + 2);
  return /[\p{L}\p{M}\p{N}][-'’]$/u.test(before) || /^-[\p{L}\p{M}\p{N}]/u.test(after);
}

/** Whether `found` only differs from the term by an ending (a plural, a possessive, a case ending). */
const onlyEnding = (found: string, key: string) => found.startsWith(key) || key.startsWith(found);

interface Found {
  start: number;
  end: number;
  to: string;
}

/** The best term for the run of tokens from `i`: the longest exact key first, then a near one. */
function matchAt(
  text: string,
  tokens: Token[],
  i: number,
  floor: number,
  index: Index,
  common: Set<string> | null,
  language: string,
  memo: Map<string, Term | null>,
): { found: Found; next: number } | null {
  let key = "";
  let best: { term: Term; last: number } | null = null;
  for (let n = 0; n < index.maxWords + 2 && i + n < tokens.length; n++) {
    const t = tokens[i + n];
    if (n > 0 && !joins(text, tokens[i + n - 1].end, t.start)) break;
    key += t.norm;
    if (key.length > index.maxKeyLength) break;
    const term = index.byKey.get(key);
    if (term) best = { term, last: i + n };
  }
  // A lone function word is never a term's other spelling ("us" is not "US", "may" not "May").
  if (best && !(best.last === i && stopwords(language).has(tokens[i].norm))) {
    const found = { start: tokens[i].start, end: tokens[best.last].end, to: best.term.text };
    return { found, next: best.last + 1 };
  }
  if (!common) return null;
  const one = tokens[i];
  if (index.nearLengths.has(one.norm.length) && !common.has(one.norm)) {
    let near = memo.get(one.norm);
    if (near === undefined) {
      near = nearSingle(one.norm, index);
      memo.set(one.norm, near);
    }
    if (near) return { found: { start: one.start, end: one.end, to: near.text }, next: i + 1 };
  }
  const multi = index.byWord.get(one.norm);
  if (multi) {
    for (const term of multi) {
      const hit = nearRun(text, tokens, i, floor, term, common);
      if (hit) return hit;
    }
  }
  return null;
}

function nearSingle(norm: string, index: Index): Term | null {
  const maxD = norm.length >= 6 ? 2 : 1;
  let best: Term | null = null;
  let bestD = 3;
  for (const v of deletionVariants(norm, maxD)) {
    for (const term of index.deletions.get(v) ?? []) {
      if (term === best || onlyEnding(norm, term.key)) continue;
      const d = editDistance(norm, term.key, term.distance);
      if (d <= term.distance && d < bestD) {
        best = term;
        bestD = d;
      }
    }
  }
  return best;
}

/**
 * A run of words that includes tokens[i] (one of the term's words), starts no earlier than `floor`
 * (the end of the last fix), is within the term's edit distance, and whose other words are not
 * common ones.
 */
function nearRun(
  text: string,
  tokens: Token[],
  i: number,
  floor: number,
  term: Term,
  common: Set<string>,
): { found: Found; next: number } | null {
  const k = term.words.length;
  for (let n = Math.max(2, k - 1); n <= k + 1; n++) {
    for (let s = Math.max(floor, i - n + 1); s <= i && s + n <= tokens.length; s++) {
      const run = tokens.slice(s, s + n);
      if (run.some((t, j) => j > 0 && !joins(text, run[j - 1].end, t.start))) continue;
      const key = run.map((t) => t.norm).join("");
      if (onlyEnding(key, term.key) || editDistance(key, term.key, term.distance) > term.distance) continue;
      if (run.some((t) => !term.words.includes(t.norm) && common.has(t.norm))) continue;
      return { found: { start: run[0].start, end: run[n - 1].end, to: term.text }, next: s + n };
    }
  }
  return null;
}

/** The text's words with their case-folded forms. */
function tokensOf(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const start = m.index ?? 0;
    out.push({ start, end: start + m[0].length, norm: fold(m[0]) });
  }
  return out;
}

/** Spaced languages: whole words and runs of words. */
function findSpaced(text: string, index: Index, language: string): Found[] {
  const common = index.deletions.size || index.byWord.size ? commonWords(language) : null;
  const tokens = tokensOf(text);
  const out: Found[] = [];
  let floor = 0;
  const memo = new Map<string, Term | null>();
  for (let i = 0; i < tokens.length; ) {
    const hit = matchAt(text, tokens, i, floor, index, common, language, memo);
    if (!hit || insideWord(text, hit.found.start, hit.found.end)) {
      i++;
      continue;
    }
    out.push(hit.found);
    i = floor = hit.next;
  }
  return out;
}

/** Languages without spaces: the term's characters in another width or case, anywhere. */
function findSpaceless(text: string, terms: readonly string[]): Found[] {
  // The folded text, with each folded character's start in the original.
  const parts: string[] = [];
  const origin: number[] = [];
  const cache = new Map<string, string>();
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      parts.push(c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : text[i]);
      origin.push(i++);
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i) as number);
    let f = cache.get(ch);
    if (f === undefined) {
      f = fold(ch);
      cache.set(ch, f);
    }
    for (let j = 0; j < f.length; j++) origin.push(i);
    parts.push(f);
    i += ch.length;
  }
  const folded = parts.join("");
  origin.push(text.length);
  // Terms by their first two characters (one for one-character terms), longest first.
  const byHead = new Map<string, Array<{ key: string; term: string }>>();
  for (const term of normalizeTerms(terms)) {
    const key = fold(term);
    if (!key) continue;
    const head = key.slice(0, 2);
    const list = byHead.get(head) ?? [];
    list.push({ key, term });
    list.sort((a, b) => b.key.length - a.key.length);
    byHead.set(head, list);
  }
  const out: Found[] = [];
  for (let at = 0; at < folded.length; ) {
    const hit =
      byHead.get(folded.slice(at, at + 2))?.find((t) => folded.startsWith(t.key, at)) ??
      byHead.get(folded[at])?.find((t) => t.key.length === 1);
    if (!hit) {
      at++;
      continue;
    }
    out.push({ start: origin[at], end: origin[at + hit.key.length], to: hit.term });
    at += hit.key.length;
  }
  return out;
}

/**
 * Writes each glossary term with the glossary's spelling wherever `text` has it in another case or
 * spacing, or (terms of 5+ letters, spaced languages with a list of common words) within a small edit
 * distance; see the top of this file. Fixes are in the order of the text, with offsets into the
 * original; a place already spelt as the glossary has it is not a fix.
 */
export function applyGlossary(text: string, terms: readonly string[], language: string): GlossaryResult {
  if (!terms.length || !text) return { text, fixes: [] };
  let found: Found[];
  let literal: RegExp | null = null;
  if (isSpacelessLanguage(language)) {
    found = findSpaceless(text, terms);
  } else {
    const index = buildIndex(terms, commonWords(language) !== null);
    found = findSpaced(text, index, language.toLowerCase().split(/[-_]/)[0]);
    literal = index.literal;
  }
  if (literal) {
    for (const m of text.matchAll(literal)) {
      const start = m.index ?? 0;
      const to = normalizeTerms(terms).find((t) => fold(t) === fold(m[0]));
      if (to) found.push({ start, end: start + m[0].length, to });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const fixes: GlossaryFix[] = [];
  let out = "";
  let at = 0;
  for (const f of found) {
    if (f.start < at) continue;
    const from = text.slice(f.start, f.end);
    if (from === f.to) continue;
    fixes.push({ from, to: f.to, start: f.start, end: f.end });
    out += text.slice(at, f.start) + f.to;
    at = f.end;
  }
  if (!fixes.length) return { text, fixes };
  return { text: out + text.slice(at), fixes };
}

/** Whisper's prompt budget: 224 tokens (half its text context). */
export const WHISPER_PROMPT_TOKENS = 224;

/**
 * A rough count of Whisper tokens, without its tokenizer: a token per 3 ASCII characters (names split
 * into pieces), a token per other character (CJK characters, accented letters). It errs on the high side.
 */
export function approxWhisperTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3) + other;
}

/**
 * Whisper's initial prompt: the speakers' names, then the glossary's terms in the order they are
 * listed, comma-separated, as many as fit in its prompt budget (terms past it are left out; the
 * correction step still applies them). Undefined when there is nothing to say.
 */
export function whisperPrompt(names: readonly string[], terms: readonly string[]): string | undefined {
  const items: string[] = [];
  let used = 1;
  for (const item of normalizeTerms([...names, ...terms])) {
    const cost = approxWhisperTokens(`${item}, `);
    if (used + cost > WHISPER_PROMPT_TOKENS) break;
    items.push(item);
    used += cost;
  }
  return items.length ? `${items.join(", ")}.` : undefined;
}
