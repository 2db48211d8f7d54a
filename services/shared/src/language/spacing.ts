/**
 * How a language's script uses spaces, defined once: pieces of transcripts, sentences of summaries
 * and the correction rules all join text by it.
 * - "none": no spaces at all, between words or sentences (Japanese, Chinese, Cantonese);
 * - "phrases": spaces between phrases and sentences, not between words (Thai, Lao, Khmer, Burmese, Tibetan);
 * - "words": spaces between words (every other language).
 */
export type Spacing = "words" | "phrases" | "none";

const SPACING: Record<string, Spacing> = {
  ja: "none",
  zh: "none",
  yue: "none",
  th: "phrases",
  lo: "phrases",
  km: "phrases",
  my: "phrases",
  bo: "phrases",
};

/** The spacing of a language code or tag ("ja", "ja-JP", "zh_Hant"). */
export function spacingOf(language: string | null | undefined): Spacing {
  return SPACING[(language ?? "").toLowerCase().split(/[-_]/)[0]] ?? "words";
}

/** Languages written without spaces between words: their pieces (ASR segments, word runs) join without a space. */
export function isSpacelessLanguage(language: string | null | undefined): boolean {
  return spacingOf(language) !== "words";
}

/** What goes between two sentences: nothing in Japanese or Chinese, a space otherwise (Thai included). */
export function sentenceJoiner(language: string | null | undefined): string {
  return spacingOf(language) === "none" ? "" : " ";
}
