/**
 * Language detection for locations that carry no /{lang} prefix (docs/decisions/0013-languages.md): query string
 * (`?lng=`), cookie (`i18next`), local storage (`i18nextLng`), browser languages, page language tag.
 * The first supported code wins; nothing supported means English. Pure: the sources are passed in.
 */
import { DEFAULT_LANGUAGE, type Language, matchLanguage } from "@kikitori/shared";

export const QUERY_PARAM = "lng";
export const COOKIE_NAME = "i18next";
export const STORAGE_KEY = "i18nextLng";

export interface DetectionSources {
  search: string;
  cookie: string;
  storage: string | null;
  browser: readonly string[];
  htmlLang: string;
}

function cookieValue(cookie: string, name: string): string | null {
  for (const part of cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return null;
}

/** The ordered candidates, for tests and diagnostics. */
export function candidates(s: DetectionSources): (string | null)[] {
  return [
    new URLSearchParams(s.search).get(QUERY_PARAM),
    cookieValue(s.cookie, COOKIE_NAME),
    s.storage,
    ...s.browser,
    s.htmlLang,
  ];
}

export function detectLanguage(s: DetectionSources): Language {
  for (const c of candidates(s)) {
    const lang = matchLanguage(c);
    if (lang) return lang;
  }
  return DEFAULT_LANGUAGE;
}

/** The explicit `?lng=` override, if it names a supported language. */
export function queryLanguage(search: string): Language | null {
  return matchLanguage(new URLSearchParams(search).get(QUERY_PARAM));
}

/** Reads the sources from the browser. */
export function browserSources(search: string): DetectionSources {
  let storage: string | null = null;
  try {
    storage = window.localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage can be blocked (private mode, sandboxed frames): skip that source.
  }
  return {
    search,
    cookie: document.cookie,
    storage,
    browser: navigator.languages?.length ? navigator.languages : [navigator.language],
    htmlLang: document.documentElement.getAttribute("lang") ?? "",
  };
}
