import type { Language } from "@kikitori/shared";

/** Each language's name in itself, for the language selector. Not translated by design. */
export const NATIVE_LANGUAGE_NAMES: Record<Language, string> = {
  en: "English",
  ja: "日本語",
  zh: "中文",
  de: "Deutsch",
  fr: "Français",
  it: "Italiano",
  th: "ไทย",
  nl: "Nederlands",
  id: "Bahasa Indonesia",
  el: "Ελληνικά",
  ko: "한국어",
  hi: "हिन्दी",
  sv: "Svenska",
  pl: "Polski",
  es: "Español",
  ru: "Русский",
  pt: "Português",
  tr: "Türkçe",
  vi: "Tiếng Việt",
  ta: "தமிழ்",
  fa: "فارسی",
  tl: "Tagalog",
  ar: "العربية",
  uk: "Українська",
};
