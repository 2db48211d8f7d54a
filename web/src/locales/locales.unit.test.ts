import { describe, expect, it } from "@jest/globals";
import { ERROR_CODES, SUPPORTED_LANGUAGES } from "@kikitori/shared";
import {
  checkLocale,
  differingShare,
  type LocaleMap,
  loadLocales,
  placeholders,
} from "../../scripts/check-locales.mjs";

/**
 * Both translation sets (web interface; server e-mails, plan names, speaker labels) in all 24
 * languages: one key set (plural keys with exactly the language's CLDR categories), the same
 * placeholders and tags as English, nothing empty, and real translations rather than English copies.
 */
const sets = { web: loadLocales("web"), server: loadLocales("server") };
const others = SUPPORTED_LANGUAGES.filter((l) => l !== "en");

describe.each(Object.entries(sets))("%s translations", (set, locales) => {
  it("exist for exactly the 24 languages", () => {
    expect(Object.keys(locales).sort()).toEqual([...SUPPORTED_LANGUAGES].sort());
  });

  it.each(others)("%s has the English keys, plural forms, placeholders and no empty text", (lang) => {
    expect(checkLocale(locales, lang)).toEqual([]);
  });

  it.each(others)("%s is translated: the large majority of its texts differ from English", (lang) => {
    expect(differingShare(locales, lang)).toBeGreaterThanOrEqual(set === "web" ? 0.9 : 0.85);
  });
});

describe("the checker itself", () => {
  const en: LocaleMap = new Map<string, unknown>([
    ["a.title", "Hello {{name}}"],
    ["a.count_one", "{{count, number}} file"],
    ["a.count_other", "{{count, number}} files"],
    ["b", "By logging in you accept the <terms>terms</terms>."],
  ]);
  const check = (lang: string, entries: [string, unknown][]) => checkLocale({ en, [lang]: new Map(entries) }, lang);
  const good: [string, unknown][] = [
    ["a.title", "Hallo {{name}}"],
    ["a.count_one", "{{count, number}} Datei"],
    ["a.count_other", "{{count, number}} Dateien"],
    ["b", "Mit der Anmeldung akzeptieren Sie die <terms>Bedingungen</terms>."],
  ];

  it("passes a complete file", () => expect(check("de", good)).toEqual([]));

  it("fails a missing, extra or empty key, a changed placeholder or a lost tag", () => {
    expect(check("de", good.slice(1))).toEqual(["de: missing key a.title"]);
    expect(check("de", [...good, ["c", "x"]])).toEqual(["de: extra key c"]);
    expect(check("de", [["a.title", " "], ...good.slice(1)])).toEqual(["de: empty or non-text value at a.title"]);
    expect(check("de", [["a.title", "Hallo {{nom}}"], ...good.slice(1)])).toHaveLength(1);
    expect(check("de", [...good.slice(0, 3), ["b", "Sie akzeptieren die Bedingungen."]])).toHaveLength(1);
  });

  it("asks each language for exactly its plural categories", () => {
    expect(check("ja", [good[0], ["a.count_other", "{{count, number}} 件"], good[3]])).toEqual([]);
    expect(check("ja", good)).toEqual(["ja: extra key a.count_one (plural categories of ja: other)"]);
    const ru = check("ru", good);
    expect(ru).toEqual(["ru: missing key a.count_few", "ru: missing key a.count_many"]);
  });

  it("reads {{x}}, {{x, format}} and <tag> placeholders", () => {
    expect(placeholders("{{a}} {{ b, number }} <terms>x</terms>")).toEqual(["a", "b", "terms"]);
  });
});

describe("web texts", () => {
  it("have a message for every API error code in every language", () => {
    for (const [lang, map] of Object.entries(sets.web)) {
      for (const code of Object.keys(ERROR_CODES))
        expect([lang, code, !!map.get(`errors.${code}`)]).toEqual([lang, code, true]);
    }
  });
});
