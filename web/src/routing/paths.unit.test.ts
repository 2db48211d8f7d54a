import { describe, expect, it } from "@jest/globals";
import { resolveLocation, showsFeatureTabs, showsShareBar, stripLanguage, switchLanguagePath } from "./paths.ts";

describe("resolveLocation", () => {
  it.each([
    ["/", "", "/en"],
    ["/", "?lng=ja&x=1", "/en?x=1"],
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
    ["/", "", "ja", "/ja"],
    ["/summary", "?a=1", "ko", "/ko/summary?a=1"],
    ["/password-reset/confirm", "?token=abc", "de", "/de/password-reset/confirm?token=abc"],
    // An explicit but unknown prefix stays English whatever was detected.
    ["/xx/summary", "", "ja", "/en/summary"],
    // A known prefix wins over detection; ?lng= switches it explicitly.
    ["/en/summary", "?lng=de&a=1", "ja", "/de/summary?a=1"],
    ["/en", "?lng=fr", "ja", "/fr/transcription"],
  ])("%s%s with %s detected → %s", (path, search, detected, to) => {
    expect(resolveLocation(path, search, "", detected as "ja")).toEqual({ kind: "redirect", to });
  });

  it("renders a prefixed path whatever was detected, and ignores an unsupported ?lng", () => {
    expect(resolveLocation("/fr/summary", "", "", "ja")).toEqual({ kind: "ok", lang: "fr", rest: "/summary" });
    expect(resolveLocation("/fr/summary", "?lng=xx")).toEqual({ kind: "ok", lang: "fr", rest: "/summary" });
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
    ["/en/shared/AbC_-123", false],
    ["/en/upgrade-plan", false],
    ["/en/upgrade-plan/", false],
  ])("%s → %s", (path, shown) => {
    expect(showsFeatureTabs(path)).toBe(shown);
  });
});

describe("showsShareBar", () => {
  it.each([
    ["/en/transcriptions", false],
    ["/ja/transcriptions/3f2a", false],
    ["/en/account", false],
    ["/en/shared/AbC_-123", false],
    ["/en/login", false],
    ["/en/nowhere", false],
    ["/en/transcription", true],
    ["/ar/summary", true],
    ["/de/title-header-generator/", true],
    ["/en/upgrade-plan", true],
  ])("%s → %s", (path, shown) => {
    expect(showsShareBar(path)).toBe(shown);
  });
});
