// The language toolkit shared by the correction and the text tools: detection, spacing, words.
import { describe, expect, it } from "@jest/globals";
import { isSpacelessLanguage } from "@kikitori/shared";
import {
  detectLanguage,
  guessLanguage,
  normWord,
  sentenceJoiner,
  spacingOf,
  stopwords,
  tokenize,
} from "@kikitori/shared/language";

describe("detectLanguage", () => {
  it.each([
    [
      "Il progetto è stato avviato nel 2019 e non è ancora finito, ma la strada è chiusa per una parte della giornata.",
      "it",
    ],
    ["Het project is in 2019 begonnen en is nog niet klaar, maar de weg is nog een deel van de dag dicht.", "nl"],
    ["O projeto começou em 2019 e ainda não terminou, mas a estrada ainda está fechada para uma parte do dia.", "pt"],
    ["Dự án bắt đầu vào năm 2019 và vẫn chưa kết thúc. Người dân thành phố hài lòng.", "vi"],
    ["Ang proyekto ay nagsimula noong 2019 at hindi pa tapos. Masaya ang mga tao sa lungsod.", "tl"],
    ["um so yeah i was like going to the store and then i saw him", "en"],
  ])("%s → %s", (text, lang) => {
    expect(detectLanguage(text)).toBe(lang);
  });

  it("takes Chinese for Japanese only with kana in it, whatever the hint", () => {
    expect(detectLanguage("共享单车在中国的大城市突然出现，许多城市设定了上限。", "ja")).toBe("zh");
    expect(detectLanguage("共有自転車は大都市に突然現れました。", "zh")).toBe("ja");
  });

  it("is not sure without evidence: the hint or English decides", () => {
    expect(guessLanguage("12345", "de")).toMatchObject({ language: "de", sure: false, script: "none" });
    expect(guessLanguage("", undefined)).toMatchObject({ language: "en", sure: false });
    expect(guessLanguage("Привет, как дела?", "en")).toMatchObject({ language: "ru", sure: true, script: "cyrillic" });
  });
});

describe("spacing", () => {
  it("is defined once: words, phrases or none", () => {
    expect([spacingOf("en"), spacingOf("th"), spacingOf("ja-JP"), spacingOf("zh_Hant")]).toEqual([
      "words",
      "phrases",
      "none",
      "none",
    ]);
    expect(["ja", "zh", "th", "en"].map(isSpacelessLanguage)).toEqual([true, true, true, false]);
    expect(["ja", "zh", "th", "en"].map(sentenceJoiner)).toEqual(["", "", " ", " "]);
  });
});

describe("words", () => {
  it("compares words in NFKC lower case with plain apostrophes", () => {
    expect(normWord("Don’t")).toBe("don't");
    expect(normWord("ＡＢＣ")).toBe("abc");
    expect(normWord("İSTANBUL", "tr")).toBe("istanbul");
  });

  it("counts a contraction with a typographic apostrophe as the function word it is", () => {
    expect(stopwords("en").has("don't")).toBe(true);
    expect(tokenize("I don’t know", "en").map((t) => [t.norm, t.content])).toEqual([
      ["i", false],
      ["don't", false],
      ["know", false],
    ]);
  });
});
