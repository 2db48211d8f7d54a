/**
 * The 24 interface languages of the product (URL prefixes and the menu: docs/decisions/0013-languages.md).
 * `en` is the fallback.
 */
export const SUPPORTED_LANGUAGES = [
  "en",
  "ja",
  "zh",
  "de",
  "fr",
  "it",
  "th",
  "nl",
  "id",
  "el",
  "ko",
  "hi",
  "sv",
  "pl",
  "es",
  "ru",
  "pt",
  "tr",
  "vi",
  "ta",
  "fa",
  "tl",
  "ar",
  "uk",
] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

export const RTL_LANGUAGES: readonly Language[] = ["ar", "fa"];
export const DEFAULT_LANGUAGE: Language = "en";

export function isSupportedLanguage(value: unknown): value is Language {
  return typeof value === "string" && (SUPPORTED_LANGUAGES as readonly string[]).includes(value);
}

/** The supported language of a tag ("ja-JP" → ja, "PT_br" → pt, "zh-Hant" → zh), or null. */
export function matchLanguage(value: string | null | undefined): Language | null {
  const base = (value ?? "").trim().toLowerCase().split(/[-_]/)[0];
  return isSupportedLanguage(base) ? base : null;
}

/** Maps any string (e.g. "ja-JP", "PT_br") to a supported language, else the fallback. */
export function normalizeLanguage(value: string | null | undefined): Language {
  return matchLanguage(value) ?? DEFAULT_LANGUAGE;
}
