import { describe, expect, it } from "@jest/globals";
import { resolveLocation, showsFeatureTabs, stripLanguage, switchLanguagePath } from "./paths.ts";

describe("resolveLocation", () => {
  it.each([
    ["/", "", "/en"],
    ["/", "?lng=ja", "/en?lng=ja"],
    ["/en", "", "/en/transcription"],
    ["/ja/", "", "/ja/transcription"],
    ["/xx/summary", "", "/en/summary"],
    ["/summary", "", "/en/summary"],
    ["/summary", "?a=1", "/en/summary?a=1"],
    ["/password-reset/confirm", "?token=abc", "/en/password-reset/confirm?token=abc"],
    ["/pt-BR/login", "", "/en/login"],
    ["/EN/login", "", "/en/login"],
    ["/xx", "", "/en"],
    ["/nonsense-page", "", "/en/nonsense-page"],
  ])("%s%s → %s", (path, search, to) => {
    expect(resolveLocation(path, search)).toEqual({ kind: "redirect", to });
  });

  it.each([
    ["/en/transcription", "en", "/transcription"],
    ["/ja/summary", "ja", "/summary"],
    ["/ar/login", "ar", "/login"],
    ["/uk/password-reset/confirm", "uk", "/password-reset/confirm"],
  ])("%s renders in %s", (path, lang, rest) => {
    expect(resolveLocation(path)).toEqual({ kind: "ok", lang, rest });
  });
});

describe("language switching", () => {
  it("keeps the path, query and hash", () => {
    expect(switchLanguagePath("/en/summary", "ja", "?x=1", "#h")).toBe("/ja/summary?x=1#h");
    expect(switchLanguagePath("/en", "de")).toBe("/de");
    expect(stripLanguage("/fr/verify-email")).toBe("/verify-email");
  });
});

describe("showsFeatureTabs", () => {
  it.each([
    ["/en/transcription", true],
    ["/en/summary", true],
    ["/en/title-header-generator", true],
    ["/en/login", false],
    ["/ja/register", false],
    ["/en/password-reset", false],
    ["/en/password-reset/confirm", false],
    ["/en/verify-email", false],
    ["/en/upgrade-plan", false],
    ["/en/upgrade-plan/", false],
  ])("%s → %s", (path, shown) => {
    expect(showsFeatureTabs(path)).toBe(shown);
  });
});
