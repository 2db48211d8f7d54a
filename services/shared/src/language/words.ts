/**
 * Words of any language through Intl.Segmenter (ICU), so texts without spaces (Japanese, Chinese,
 * Thai) split into words as well as English or German. Every token keeps its offsets into the source.
 */
import { segmenter, textPieces } from "./segmenter.ts";
import { stopwords } from "./stopwords.ts";

export interface WordToken {
  surface: string;
  /** The form words are compared by (see normWord). */
  norm: string;
  start: number;
  end: number;
  /** Carries topic (not a function word, not a bare particle). */
  content: boolean;
}

const ASCII = /^[\x20-\x7e]*$/;
const LOCALE_CASE = new Set(["tr", "az", "lt"]);
const APOSTROPHES = /[’‘`´]/g;

/**
 * The form words are compared by: NFKC (full-width letters, compatibility forms), lower case (Turkish,
 * Azerbaijani and Lithuanian by their own rules), typographic apostrophes made plain ("don’t" → "don't").
 */
export function normWord(word: string, lang?: string): string {
  if (ASCII.test(word)) return word.toLowerCase().replace(APOSTROPHES, "'");
  const nfkc = word.normalize("NFKC");
  const lower = lang && LOCALE_CASE.has(lang) ? nfkc.toLocaleLowerCase(lang) : nfkc.toLowerCase();
  return lower.replace(APOSTROPHES, "'");
}

/** Whether a (normalised) word carries topic in this language. */
export function isContentWord(norm: string, lang: string): boolean {
  if (!/[\p{L}\p{N}]/u.test(norm)) return false;
  if (stopwords(lang).has(norm)) return false;
  if (lang === "ja") {
    // Bare hiragana words are particles, auxiliaries and verb endings; topics are kanji/katakana/Latin.
    if (/^[\p{Script=Hiragana}ー]+$/u.test(norm)) return false;
    if (/^\p{N}+$/u.test(norm)) return false;
    return true;
  }
  if (lang === "zh" || lang === "th") return !/^\p{N}+$/u.test(norm);
  // Spaced languages: a single letter or a bare number is not a topic word.
  if (norm.length < 2) return false;
  if (/^\p{N}+$/u.test(norm) && norm.length < 4) return false;
  return true;
}

/** Word tokens (ICU word boundaries, word-like segments only) with offsets relative to `offset`. */
export function tokenize(text: string, lang: string, offset = 0): WordToken[] {
  const out: WordToken[] = [];
  const words = segmenter(lang, "word");
  for (const [pStart, pEnd] of textPieces(text)) {
    for (const seg of words.segment(text.slice(pStart, pEnd))) {
      if (!seg.isWordLike) continue;
      const norm = normWord(seg.segment, lang);
      const start = offset + pStart + seg.index;
      out.push({
        surface: seg.segment,
        norm,
        start,
        end: start + seg.segment.length,
        content: isContentWord(norm, lang),
      });
    }
  }
  return out;
}

/** Word boundaries (UTF-16 offsets) inside a text: where it may be cut without splitting a word. */
export function wordBoundaries(text: string, lang: string): number[] {
  const out: number[] = [0];
  for (const [pStart, pEnd] of textPieces(text)) {
    if (pStart > 0) out.push(pStart);
    for (const seg of segmenter(lang, "word").segment(text.slice(pStart, pEnd))) {
      if (seg.index > 0) out.push(pStart + seg.index);
    }
  }
  out.push(text.length);
  return out;
}
