/**
 * The audio language of an upload (the language spoken in the recording, not the interface language):
 * the selector's options named in the interface language, the default, and the remembered choice.
 * Pure (Intl only); storage is injected.
 */
import {
  AUTO_LANGUAGE,
  type AudioLanguage,
  parseAudioLanguage,
  type SpeechStatus,
  speechRefuses,
  WHISPER_LANGUAGES,
} from "@kikitori/shared";

import fullIcuNames from "../i18n/language-names.json";

/** localStorage key of the last audio language the user picked. */
export const AUDIO_LANGUAGE_KEY = "kikitori.audioLanguage";

/** Whisper codes that are spelt differently in BCP 47 (what Intl.DisplayNames takes). */
const BCP47: Record<string, string> = { jw: "jv" };

const ENGLISH_NAMES: ReadonlyMap<string, string> = new Map(WHISPER_LANGUAGES);

const displayNames = new Map<string, Intl.DisplayNames | null>();

function namesFor(uiLang: string): Intl.DisplayNames | null {
  let names = displayNames.get(uiLang);
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames([uiLang], { type: "language", fallback: "none" });
    } catch {
      names = null;
    }
    displayNames.set(uiLang, names);
  }
  return names;
}

/**
 * Names from a full ICU (web/scripts/language-names.mjs), for the ones the browser's Intl lacks:
 * Chromium's trimmed ICU has no Bashkir or Tibetan in any language.
 */
const FULL_ICU_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = fullIcuNames;

/**
 * A language's name in the interface language ("Japanisch" for ja in German), as it reads inside a
 * sentence: the browser's Intl.DisplayNames, else the same from a full ICU (generated), else the
 * English name from WHISPER_LANGUAGES; the code as the last resort.
 */
export function languageName(code: string, uiLang: string): string {
  let name: string | undefined;
  try {
    name = namesFor(uiLang)?.of(BCP47[code] ?? code);
  } catch {
    name = undefined;
  }
  if (name && name.toLowerCase() !== code.toLowerCase()) return name;
  const base = parseAudioLanguage(code);
  const ui = uiLang.split(/[-_]/)[0].toLowerCase();
  const generated = FULL_ICU_NAMES[ui]?.[base ?? code] ?? FULL_ICU_NAMES[ui]?.[code];
  if (generated) return generated;
  return (base && ENGLISH_NAMES.get(base)) || ENGLISH_NAMES.get(code) || code;
}

/** The name as a list entry starts ("Japonais", not "japonais"): first letter upper case where the script has case. */
export function menuName(name: string, uiLang: string): string {
  const first = name.codePointAt(0);
  if (first === undefined) return name;
  const head = String.fromCodePoint(first);
  let upper: string;
  try {
    upper = head.toLocaleUpperCase(uiLang);
  } catch {
    upper = head.toUpperCase();
  }
  return upper + name.slice(head.length);
}

export interface AudioLanguageOption {
  code: string;
  label: string;
  /** The speech engine in use cannot take this language (GET /api/speech lists the ones it can). */
  unavailable: boolean;
}

const collators = new Map<string, Intl.Collator>();

function collatorFor(uiLang: string): Intl.Collator {
  let c = collators.get(uiLang);
  if (!c) {
    try {
      c = new Intl.Collator(uiLang, { sensitivity: "base" });
    } catch {
      c = new Intl.Collator("en", { sensitivity: "base" });
    }
    collators.set(uiLang, c);
  }
  return c;
}

/**
 * The Whisper languages for the selector (after "Detect automatically", which is not in the list),
 * named in the interface language and sorted by that name; languages the engine in use refuses are
 * marked unavailable.
 */
export function audioLanguageOptions(uiLang: string, status?: SpeechStatus | null): AudioLanguageOption[] {
  const collator = collatorFor(uiLang);
  return WHISPER_LANGUAGES.map(([code]) => ({
    code,
    label: menuName(languageName(code, uiLang), uiLang),
    unavailable: status ? speechRefuses(status, code) : false,
  })).sort((a, b) => collator.compare(a.label, b.label) || a.code.localeCompare(b.code));
}

/**
 * The choice the selector starts with: the remembered one when it is still a language Whisper knows,
 * else the interface language (every interface language is a Whisper code), else "auto". A language
 * the speech engine in use cannot take is never the default: then it is "Detect automatically", so a
 * page opened in an interface language the server has no engine for shows no error.
 */
export function defaultAudioLanguage(
  uiLang: string,
  stored: string | null | undefined,
  status?: SpeechStatus | null,
): AudioLanguage {
  const usable = (l: AudioLanguage | null): l is AudioLanguage => !!l && !(status && speechRefuses(status, l));
  const picked = parseAudioLanguage(stored);
  if (usable(picked)) return picked;
  const interfaceLanguage = parseAudioLanguage(uiLang);
  if (usable(interfaceLanguage)) return interfaceLanguage;
  return AUTO_LANGUAGE;
}

/**
 * The selector's options in two groups: the languages the engine in use can take (shown first), and
 * the rest (behind "More languages (not installed on this server)", disabled).
 */
export function groupAudioLanguageOptions(options: readonly AudioLanguageOption[]): {
  available: AudioLanguageOption[];
  more: AudioLanguageOption[];
} {
  return {
    available: options.filter((o) => !o.unavailable),
    more: options.filter((o) => o.unavailable),
  };
}

/** The remembered choice (localStorage), tolerant of a storage that throws. */
export interface AudioLanguageStore {
  get(): AudioLanguage | null;
  set(language: string): void;
}

export function audioLanguageStore(storage: Pick<Storage, "getItem" | "setItem"> | null): AudioLanguageStore {
  return {
    get() {
      try {
        return parseAudioLanguage(storage?.getItem(AUDIO_LANGUAGE_KEY) ?? null);
      } catch {
        return null;
      }
    },
    set(language) {
      const value = parseAudioLanguage(language);
      if (!value) return;
      try {
        storage?.setItem(AUDIO_LANGUAGE_KEY, value);
      } catch {
        /* storage full or blocked: the next upload starts from the default */
      }
    },
  };
}
