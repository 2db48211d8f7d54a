import { describe, expect, it } from "@jest/globals";
import { matchLanguage } from "@kikitori/shared";
import { type DetectionSources, detectLanguage, queryLanguage } from "./detect.ts";

const none: DetectionSources = { search: "", cookie: "", storage: null, browser: [], htmlLang: "" };

describe("language detection order", () => {
  const all: DetectionSources = {
    search: "?lng=de",
    cookie: "a=1; i18next=fr; b=2",
    storage: "ja",
    browser: ["ko-KR", "en-US"],
    htmlLang: "it",
  };

  it("takes query, then cookie, then local storage, then browser languages, then the page tag", () => {
    expect(detectLanguage(all)).toBe("de");
    expect(detectLanguage({ ...all, search: "" })).toBe("fr");
    expect(detectLanguage({ ...all, search: "", cookie: "" })).toBe("ja");
    expect(detectLanguage({ ...all, search: "", cookie: "", storage: null })).toBe("ko");
    expect(detectLanguage({ ...all, search: "", cookie: "", storage: null, browser: [] })).toBe("it");
    expect(detectLanguage(none)).toBe("en");
  });

  it("skips unsupported values and goes on to the next source", () => {
    expect(detectLanguage({ ...none, search: "?lng=xx", cookie: "i18next=klingon", browser: ["nb-NO", "pt-BR"] })).toBe(
      "pt",
    );
  });

  it("normalises region and script subtags and case", () => {
    expect(matchLanguage("zh-Hant-TW")).toBe("zh");
    expect(matchLanguage("EN_gb")).toBe("en");
    expect(matchLanguage("")).toBeNull();
    expect(queryLanguage("?lng=UK")).toBe("uk");
    expect(queryLanguage("?x=1")).toBeNull();
  });
});
