import { describe, expect, it } from "@jest/globals";
import { SPEECH_STATUS_UNKNOWN, type SpeechStatus, SUPPORTED_LANGUAGES, WHISPER_LANGUAGES } from "@kikitori/shared";
import fullIcuNames from "../i18n/language-names.json";
import {
  AUDIO_LANGUAGE_KEY,
  audioLanguageOptions,
  audioLanguageStore,
  defaultAudioLanguage,
  groupAudioLanguageOptions,
  languageName,
  menuName,
} from "./audioLanguage.ts";

const englishOnly: SpeechStatus = {
  available: true,
  engine: "pocketsphinx",
  model: "en-us",
  languages: ["en"],
  notice: { code: "SPEECH_FALLBACK_ROUGH", setting: "WHISPER_MODEL / MODELS_DIR", reason: "no model" },
};

describe("audioLanguageOptions", () => {
  it("lists all 100 Whisper languages once, named in the interface language", () => {
    const de = audioLanguageOptions("de");
    expect(de).toHaveLength(WHISPER_LANGUAGES.length);
    expect(new Set(de.map((o) => o.code)).size).toBe(100);
    expect(de.find((o) => o.code === "ja")?.label).toBe("Japanisch");
    expect(audioLanguageOptions("ja").find((o) => o.code === "de")?.label).toBe("ドイツ語");
  });

  it("sorts by the localized name with the interface language's collation", () => {
    for (const lang of ["en", "de", "fr", "sv", "ja"]) {
      const labels = audioLanguageOptions(lang).map((o) => o.label);
      const collator = new Intl.Collator(lang, { sensitivity: "base" });
      expect(labels).toEqual([...labels].sort(collator.compare));
    }
    const en = audioLanguageOptions("en").map((o) => o.label);
    expect(en.slice(0, 3)).toEqual(["Afrikaans", "Albanian", "Amharic"]);
    // Turkish: Ç after C and İ after I, not after Z as plain code-unit order would put them.
    const tr = audioLanguageOptions("tr").map((o) => o.label);
    expect(tr.indexOf("Cava dili")).toBeLessThan(tr.indexOf("Çince"));
    expect(tr.indexOf("Çince")).toBeLessThan(tr.indexOf("Danca"));
    expect(tr.indexOf("İngilizce")).toBeLessThan(tr.indexOf("Japonca"));
  });

  it("starts each name with a capital in lists (French names are lower case in a sentence)", () => {
    expect(languageName("ja", "fr")).toBe("japonais");
    expect(audioLanguageOptions("fr").find((o) => o.code === "ja")?.label).toBe("Japonais");
    expect(menuName("ingilizce", "tr")).toBe("Ingilizce".replace("I", "İ"));
    expect(menuName("日本語", "ja")).toBe("日本語");
  });

  it("names Whisper's own codes (jw) and falls back to the English name", () => {
    expect(languageName("jw", "en")).toBe("Javanese");
    expect(languageName("haw", "de")).toBe("Hawaiisch");
    expect(languageName("yue", "xx-invalid-")).toBe("Cantonese");
    expect(languageName("zz", "en")).toBe("zz");
  });

  it("the generated full-ICU table names every audio language in every interface language", () => {
    for (const lang of SUPPORTED_LANGUAGES) {
      const names = (fullIcuNames as Record<string, Record<string, string>>)[lang];
      expect(Object.keys(names ?? {}).sort()).toEqual(WHISPER_LANGUAGES.map(([code]) => code).sort());
    }
    expect((fullIcuNames as Record<string, Record<string, string>>).ja.ba).toBe("バシキール語");
  });

  it("marks the languages the engine in use refuses as unavailable", () => {
    const opts = audioLanguageOptions("en", englishOnly);
    expect(opts.filter((o) => !o.unavailable).map((o) => o.code)).toEqual(["en"]);
    expect(audioLanguageOptions("en", SPEECH_STATUS_UNKNOWN).every((o) => !o.unavailable)).toBe(true);
  });

  it("puts the languages the engine takes first and the rest in the 'more' group", () => {
    const { available, more } = groupAudioLanguageOptions(audioLanguageOptions("ja", englishOnly));
    expect(available.map((o) => o.code)).toEqual(["en"]);
    expect(more).toHaveLength(WHISPER_LANGUAGES.length - 1);
    expect(more.every((o) => o.unavailable)).toBe(true);
  });
});

describe("the default audio language", () => {
  it("is the remembered choice, else the interface language", () => {
    expect(defaultAudioLanguage("de", null)).toBe("de");
    expect(defaultAudioLanguage("de", "ja")).toBe("ja");
    expect(defaultAudioLanguage("de", "auto")).toBe("auto");
    expect(defaultAudioLanguage("de", "klingon")).toBe("de");
    expect(defaultAudioLanguage("xx", null)).toBe("auto");
  });

  it("is never a language the engine in use cannot take: then Detect automatically", () => {
    expect(defaultAudioLanguage("ja", null, englishOnly)).toBe("auto");
    expect(defaultAudioLanguage("ar", "ar", englishOnly)).toBe("auto");
    expect(defaultAudioLanguage("ja", "en", englishOnly)).toBe("en");
    expect(defaultAudioLanguage("en", null, englishOnly)).toBe("en");
    expect(defaultAudioLanguage("ja", null, SPEECH_STATUS_UNKNOWN)).toBe("ja");
  });

  it("every interface language is a Whisper language (tl is Tagalog/Filipino)", () => {
    for (const lang of SUPPORTED_LANGUAGES) expect(defaultAudioLanguage(lang, null)).toBe(lang);
  });
});

describe("audioLanguageStore", () => {
  const memory = () => {
    const data = new Map<string, string>();
    return {
      data,
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
    };
  };

  it("remembers a valid choice and ignores junk", () => {
    const storage = memory();
    const store = audioLanguageStore(storage);
    expect(store.get()).toBeNull();
    store.set("ja");
    expect(storage.data.get(AUDIO_LANGUAGE_KEY)).toBe("ja");
    expect(store.get()).toBe("ja");
    store.set("nonsense");
    expect(store.get()).toBe("ja");
    store.set("pt-BR");
    expect(store.get()).toBe("pt");
    storage.data.set(AUDIO_LANGUAGE_KEY, "<script>");
    expect(store.get()).toBeNull();
  });

  it("works without a storage or with one that throws", () => {
    expect(audioLanguageStore(null).get()).toBeNull();
    const broken = {
      getItem: () => {
        throw new Error("blocked");
      },
      setItem: () => {
        throw new Error("full");
      },
    };
    expect(audioLanguageStore(broken).get()).toBeNull();
    expect(() => audioLanguageStore(broken).set("de")).not.toThrow();
  });
});
