/**
 * i18next setup. Every file in src/locales/<code>.json is picked up automatically, so adding a
 * language is just adding its JSON file with the same keys as en.json. English (the fallback) is in
 * the main bundle; every other language is its own chunk, loaded when it is first used (the route
 * loader awaits it, so a page never renders before its texts are there).
 */
import { isSupportedLanguage, type Language, RTL_LANGUAGES, SUPPORTED_LANGUAGES } from "@kikitori/shared";
import i18n, { type BackendModule, type ResourceKey } from "i18next";
import LanguageDetector from "i18next-browser-languagedetector";
import { initReactI18next } from "react-i18next";
import en from "../locales/en.json";
import { COOKIE_NAME, QUERY_PARAM, STORAGE_KEY } from "./detect.ts";

const loaders = import.meta.glob<ResourceKey>(["../locales/*.json", "!../locales/en.json"], { import: "default" });

const lazyLocales: BackendModule = {
  type: "backend",
  init() {},
  read(language, _namespace, callback) {
    const load = loaders[`../locales/${language}.json`];
    if (!load) return callback(null, {});
    load().then(
      (texts) => callback(null, texts),
      (err: Error) => callback(err, null),
    );
  },
};

export function applyDocumentLanguage(lng: string): void {
  const lang: Language = isSupportedLanguage(lng) ? lng : "en";
  document.documentElement.lang = lang;
  document.documentElement.dir = RTL_LANGUAGES.includes(lang) ? "rtl" : "ltr";
}

i18n.on("languageChanged", applyDocumentLanguage);

/**
 * The language of the address's /{lang} prefix, when it has a known one. It wins over the remembered
 * language from the start: otherwise the detector would begin loading the last language used (say
 * Arabic) while the route asks for English, and the two loads could finish in either order.
 */
function prefixLanguage(): Language | undefined {
  try {
    const first = window.location.pathname.split("/").find(Boolean);
    return isSupportedLanguage(first) ? first : undefined;
  } catch {
    return undefined;
  }
}

void i18n
  .use(lazyLocales)
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    lng: prefixLanguage(),
    resources: { en: { translation: en } },
    partialBundledLanguages: true,
    supportedLngs: [...SUPPORTED_LANGUAGES],
    fallbackLng: "en",
    load: "languageOnly",
    nonExplicitSupportedLngs: true,
    interpolation: { escapeValue: false },
    returnNull: false,
    // A key that exists in no language (a typo, a forgotten translation) is reported in the console;
    // the end-to-end tests fail on it.
    saveMissing: true,
    missingKeyHandler: (lngs, _ns, key) => console.warn(`i18n missing key: ${key} (${lngs.join(", ")})`),
    // Same order and names as i18n/detect.ts, which picks the prefix for paths that have none.
    detection: {
      order: ["querystring", "cookie", "localStorage", "navigator", "htmlTag"],
      lookupQuerystring: QUERY_PARAM,
      lookupCookie: COOKIE_NAME,
      lookupLocalStorage: STORAGE_KEY,
      caches: ["localStorage", "cookie"],
      cookieMinutes: 60 * 24 * 365,
      cookieOptions: { path: "/", sameSite: "lax" },
    },
    react: { useSuspense: false },
  });

/** Switches the interface language (called for the URL's /{lang} prefix). */
export async function setLanguage(lang: Language): Promise<void> {
  if (i18n.language !== lang || i18n.resolvedLanguage !== lang || !i18n.hasResourceBundle(lang, "translation")) {
    await i18n.changeLanguage(lang);
  }
  applyDocumentLanguage(lang);
}

export default i18n;
