/**
 * The language toolkit of the text steps (correction, summary, titles): which language a text is in,
 * how its script uses spaces, its sentences and words, and its function words. Pure and
 * browser-safe (Intl only); imported as `@kikitori/shared/language`.
 */
export * from "./detect.ts";
export * from "./sentences.ts";
export * from "./spacing.ts";
export * from "./stopwords.ts";
export * from "./words.ts";
