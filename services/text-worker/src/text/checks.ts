/**
 * The checks every engine's result must pass (issue: "all phrases present, length within ±10%,
 * counts exact"). The openai engine names the failures back to the model; tests use them on the
 * offline engine's output.
 */
import { charCount, nonEmptyPhrases } from "@kikitori/shared";
import { detectLanguage, spacingOf, tokenize } from "@kikitori/shared/language";
import { foldWord } from "./keyphrases.ts";

/** Allowed deviation of the summary's length from the desired length. */
export const LENGTH_TOLERANCE = 0.1;

export function lengthBounds(desiredLength: number): { min: number; max: number } {
  return {
    min: Math.ceil(desiredLength * (1 - LENGTH_TOLERANCE)),
    max: Math.floor(desiredLength * (1 + LENGTH_TOLERANCE)),
  };
}

/** Sentence-final punctuation of the scripts we write in, then any closing quotes or brackets. */
const SENTENCE_END = /[.!?。！？｡‼⁇⁈⁉؟۔।॥።]["'”’“‘»«›‹」』）)\]】〕〉》\s]*$/u;
/** An ellipsis trails off or marks a cut: not a finished sentence. */
const TRAILING_OFF = /(?:\.\.|…)["'”’“‘»«›‹」』）)\]】〕〉》\s]*$/u;
/** Full stops of scripts without spaces stand anywhere; Latin-style ones before a space or the end. */
const SENTENCE_PUNCT = /[。！？｡]|[.!?؟۔।॥።]["'”’“‘»«›‹」』）)\]】〕〉》]*(?:\s|$)/u;

/** Whether `s` ends with sentence punctuation (closing quotes and brackets after it allowed), not "…". */
export function endsSentence(s: string): boolean {
  return SENTENCE_END.test(s) && !TRAILING_OFF.test(s);
}

/**
 * Whether a text ends its sentences with punctuation at all: Thai (spaces between sentences) and raw
 * transcripts may not, and then a summary cannot be asked to.
 */
export function usesSentencePunctuation(text: string): boolean {
  return SENTENCE_PUNCT.test(text);
}

export type SummaryFailure =
  | { kind: "missing_phrase"; phrase: string }
  | { kind: "unfinished"; ending: string }
  | { kind: "too_short" | "too_long"; length: number; min: number; max: number; desired: number };

export function checkSummary(
  summary: string,
  input: { requiredPhrases: readonly string[]; desiredLength: number; text?: string },
): SummaryFailure[] {
  const failures: SummaryFailure[] = [];
  for (const phrase of nonEmptyPhrases(input.requiredPhrases)) {
    if (!summary.includes(phrase)) failures.push({ kind: "missing_phrase", phrase });
  }
  const length = charCount(summary);
  const { min, max } = lengthBounds(input.desiredLength);
  if (length < min) failures.push({ kind: "too_short", length, min, max, desired: input.desiredLength });
  if (length > max) failures.push({ kind: "too_long", length, min, max, desired: input.desiredLength });
  // A summary ends on a finished sentence (not "…in new free programs,"), when the text has sentences.
  const trimmed = summary.trimEnd();
  if (trimmed && (input.text === undefined || usesSentencePunctuation(input.text)) && !endsSentence(trimmed)) {
    failures.push({ kind: "unfinished", ending: [...trimmed].slice(-30).join("") });
  }
  return failures;
}

export type TitlesFailure =
  | { kind: "title_count" | "heading_count"; expected: number; actual: number }
  | { kind: "empty_title" | "empty_heading"; index: number }
  | { kind: "duplicate_title"; title: string }
  | { kind: "reordered_title"; title: string; other: string }
  | { kind: "request_word"; word: string; title: string };

/** A word of the custom request that the text does not contain (it may steer, never be content). */
interface RequestWord {
  surface: string;
  norm: string;
}

function requestWordsOutsideText(prompt: string, text: string, lang: string): RequestWord[] {
  const spaceless = spacingOf(lang) === "none";
  const textWords = new Set(tokenize(text, lang).map((t) => foldWord(t.norm, lang)));
  const lower = text.toLocaleLowerCase();
  const out: RequestWord[] = [];
  for (const l of new Set([lang, detectLanguage(prompt, lang)])) {
    for (const t of tokenize(prompt, l)) {
      if (!t.content || /^\d+$/u.test(t.norm) || charCount(t.surface) < 2) continue;
      const norm = foldWord(t.norm, lang);
      const inText = spaceless || spacingOf(l) === "none" ? lower.includes(t.norm) : textWords.has(norm);
      if (!inText && !out.some((w) => w.norm === norm)) out.push({ surface: t.surface, norm });
    }
  }
  return out;
}

function containsWord(title: string, w: RequestWord, lang: string): boolean {
  if (spacingOf(lang) === "none" || /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(w.surface)) {
    return title.toLocaleLowerCase().includes(w.norm);
  }
  return tokenize(title, lang).some((t) => foldWord(t.norm, lang) === w.norm);
}

/** A title's content words, folded and sorted: two titles with the same key say the same in another order. */
function wordingKey(title: string, lang: string): { set: string; sequence: string } {
  const words =
    spacingOf(lang) === "none"
      ? [...title].filter((c) => /[\p{L}\p{N}]/u.test(c))
      : tokenize(title, lang)
          .filter((t) => t.content)
          .map((t) => foldWord(t.norm, lang));
  return { set: [...new Set(words)].sort().join(" "), sequence: words.join(" ") };
}

export function checkTitles(
  result: { titles: readonly string[]; headings: readonly string[] },
  input: { numTitles: number; numHeadings: number; text?: string; customPrompt?: string; language?: string },
): TitlesFailure[] {
  const failures: TitlesFailure[] = [];
  if (result.titles.length !== input.numTitles) {
    failures.push({ kind: "title_count", expected: input.numTitles, actual: result.titles.length });
  }
  if (result.headings.length !== input.numHeadings) {
    failures.push({ kind: "heading_count", expected: input.numHeadings, actual: result.headings.length });
  }
  const seen = new Set<string>();
  result.titles.forEach((t, index) => {
    const key = t.trim().normalize("NFKC").toLocaleLowerCase();
    if (!key) failures.push({ kind: "empty_title", index });
    else if (seen.has(key)) failures.push({ kind: "duplicate_title", title: t });
    seen.add(key);
  });
  result.headings.forEach((h, index) => {
    if (!h.trim()) failures.push({ kind: "empty_heading", index });
  });
  if (input.text === undefined) return failures;
  const lang = detectLanguage(input.text, input.language);
  // The same words in another order ("Heat and trees" / "Trees and heat") are not another title.
  const keys = result.titles.map((t) => wordingKey(t, lang));
  keys.forEach((k, i) => {
    const j = keys.findIndex((o, x) => x < i && o.set === k.set && o.sequence !== k.sequence);
    if (k.set && j >= 0) failures.push({ kind: "reordered_title", title: result.titles[i], other: result.titles[j] });
  });
  // The custom request steers (angle, tone, form); its words that the text lacks never become content.
  const prompt = input.customPrompt?.trim() ?? "";
  if (prompt) {
    const words = requestWordsOutsideText(prompt, input.text, lang);
    for (const title of [...result.titles, ...result.headings]) {
      for (const w of words)
        if (containsWord(title, w, lang)) failures.push({ kind: "request_word", word: w.surface, title });
    }
  }
  return failures;
}

/** One English line per failure, to send back to a model. */
export function describeFailure(f: SummaryFailure | TitlesFailure): string {
  switch (f.kind) {
    case "missing_phrase":
      return `The summary does not contain the required phrase "${f.phrase}" verbatim.`;
    case "unfinished":
      return `The summary ends mid-sentence ("…${f.ending}"). It must end with a complete sentence and its final punctuation.`;
    case "too_short":
      return `The summary has ${f.length} characters; it must have between ${f.min} and ${f.max} (target ${f.desired}). Make it longer.`;
    case "too_long":
      return `The summary has ${f.length} characters; it must have between ${f.min} and ${f.max} (target ${f.desired}). Make it shorter.`;
    case "title_count":
      return `There are ${f.actual} titles; exactly ${f.expected} are required.`;
    case "heading_count":
      return `There are ${f.actual} headings; exactly ${f.expected} are required.`;
    case "empty_title":
      return `Title ${f.index + 1} is empty.`;
    case "empty_heading":
      return `Heading ${f.index + 1} is empty.`;
    case "reordered_title":
      return `The title "${f.title}" only reorders the words of "${f.other}"; each title must say something different.`;
    case "request_word":
      return `"${f.title}" uses the word "${f.word}" from the user's request, which the text does not contain; the request only sets the angle, tone and form, so use the text's own words.`;
    case "duplicate_title":
      return `The title "${f.title}" appears more than once; all titles must be different.`;
  }
}
