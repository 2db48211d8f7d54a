// The glossary: its limits, the matcher that writes terms with the glossary's spelling, Whisper's prompt.
import { describe, expect, it } from "@jest/globals";
import {
  applyGlossary,
  approxWhisperTokens,
  editDistance,
  glossaryBodySchema,
  glossaryFieldSchema,
  normalizeTerms,
  WHISPER_PROMPT_TOKENS,
  whisperPrompt,
} from "@kikitori/shared";

const fix = (text: string, terms: string[], lang = "en") => applyGlossary(text, terms, lang).text;

describe("glossary terms", () => {
  it("are trimmed, deduplicated case-insensitively, empty ones dropped", () => {
    expect(normalizeTerms(["  Honey  Cake ", "", "honey cake", "Apprentices", "   "])).toEqual([
      "Honey Cake",
      "Apprentices",
    ]);
  });

  it("are at most 500 of at most 100 characters", () => {
    const ok = glossaryBodySchema.safeParse({ terms: Array.from({ length: 500 }, (_, i) => `Term ${i}`) });
    expect(ok.success).toBe(true);
    expect(glossaryBodySchema.safeParse({ terms: Array.from({ length: 501 }, (_, i) => `T${i}`) }).success).toBe(false);
    expect(glossaryBodySchema.safeParse({ terms: ["x".repeat(101)] }).success).toBe(false);
    // Duplicates and blanks do not count towards the limit.
    const dup = glossaryBodySchema.parse({ terms: [...Array(600).fill("Same"), "", "Other"] });
    expect(dup.terms).toEqual(["Same", "Other"]);
  });

  it("come one per line from the upload field; blank means the account's", () => {
    expect(glossaryFieldSchema.parse("Honey Cake\r\n\r\n apprentices \nHONEY CAKE")).toEqual([
      "Honey Cake",
      "apprentices",
    ]);
    expect(glossaryFieldSchema.parse(undefined)).toBeNull();
    expect(glossaryFieldSchema.parse(" \n ")).toBeNull();
    expect(glossaryFieldSchema.safeParse("y".repeat(101)).success).toBe(false);
  });
});

describe("applyGlossary: case and spacing", () => {
  it.each([
    ["we sold honey cake there", "we sold Honey Cake there"],
    ["we sold honeycake there", "we sold Honey Cake there"],
    ["we sold HONEY-CAKE there", "we sold Honey Cake there"],
    ["honey  cake's crumbs", "Honey Cake's crumbs"],
  ])("%s", (input, output) => {
    expect(fix(input, ["Honey Cake"])).toBe(output);
  });

  it("reports each fix with its place in the original", () => {
    const r = applyGlossary("the apprentices baked honeycake.", ["Honey Cake", "Apprentices"], "en");
    expect(r.text).toBe("the Apprentices baked Honey Cake.");
    expect(r.fixes).toEqual([
      { from: "apprentices", to: "Apprentices", start: 4, end: 15 },
      { from: "honeycake", to: "Honey Cake", start: 22, end: 31 },
    ]);
  });

  it("leaves a place already spelt right, and a text without terms, as it is", () => {
    const r = applyGlossary("Honey Cake and more honey.", ["Honey Cake"], "en");
    expect(r.fixes).toEqual([]);
    expect(r.text).toBe("Honey Cake and more honey.");
  });

  it("does not join words across punctuation", () => {
    expect(fix("I like honey. Cake is fine", ["Honey Cake"])).toBe("I like honey. Cake is fine");
  });

  it("never fixes inside another word", () => {
    expect(fix("the pre-honeycake era", ["Honey Cake"])).toBe("the pre-honeycake era");
    expect(fix("honeycakes galore", ["Honey Cake"])).toBe("honeycakes galore");
    expect(fix("honeycake-like", ["Honey Cake"])).toBe("honeycake-like");
  });

  it("does not turn a lone function word into a term", () => {
    expect(fix("tell us about it", ["US"])).toBe("tell us about it");
    expect(fix("the us market", ["U.S."])).toBe("the us market");
  });

  it("fixes terms with other signs in another case only", () => {
    expect(fix("we used c++ and at&t lines", ["C++", "AT&T"])).toBe("we used C++ and AT&T lines");
  });
});

describe("applyGlossary: edit distance", () => {
  it("fixes a near spelling of a 5+ letter term (1 edit up to 7 letters, 2 from 8)", () => {
    expect(fix("we met kikitory yesterday", ["Kikitori"])).toBe("we met Kikitori yesterday");
    expect(fix("ask siobahn then", ["Siobhan"])).toBe("ask Siobhan then");
    expect(fix("the apprentises came", ["Apprentices"])).toBe("the Apprentices came");
    expect(fix("the aprentises came", ["Apprentices"])).toBe("the Apprentices came");
    // Three edits is too far.
    expect(fix("the aprentisez came", ["Apprentices"])).toBe("the aprentisez came");
    // Short terms: case and spacing only.
    expect(fix("we saw anne there", ["Anna"])).toBe("we saw anne there");
  });

  it("fixes a near spelling of a term of several words when one word is right", () => {
    expect(fix("the honey kake stall", ["Honey Cake"])).toBe("the Honey Cake stall");
    expect(fix("from siobhan o'brien", ["Siobhan O'Brian"])).toBe("from Siobhan O'Brian");
  });

  it("never turns a common word into a term", () => {
    expect(fix("a cable car", ["Gable"])).toBe("a cable car");
    expect(fix("the rather nice house", ["Rathes"])).toBe("the rather nice house");
    expect(fix("honey make sense", ["Honey Cake"])).toBe("honey make sense");
  });

  it("does not take a word with another ending for the term", () => {
    expect(fix("one apprentice came", ["Apprentices"])).toBe("one apprentice came");
  });

  it("only fixes case and spacing in a language without a list of common words", () => {
    expect(fix("we met kikitory", ["Kikitori"], "pl")).toBe("we met kikitory");
    expect(fix("we met kikitori", ["Kikitori"], "pl")).toBe("we met Kikitori");
  });

  it("measures optimal string alignment distance, bounded", () => {
    expect(editDistance("kitten", "sitting", 5)).toBe(3);
    expect(editDistance("kitten", "sitting", 2)).toBe(3);
    expect(editDistance("abcd", "abdc", 2)).toBe(1);
  });
});

describe("applyGlossary: languages without spaces", () => {
  it("fixes width and case inside Japanese text", () => {
    const r = applyGlossary("昨日ｋｉｋｉｔｏｒｉの会議で、ＡＢＣ社の話をした。", ["Kikitori", "ABC社"], "ja");
    expect(r.text).toBe("昨日Kikitoriの会議で、ABC社の話をした。");
    expect(r.fixes.map((f) => f.from)).toEqual(["ｋｉｋｉｔｏｒｉ", "ＡＢＣ社"]);
  });

  it("makes no near-spelling fixes there", () => {
    expect(fix("ききとりの会議", ["きき鳥"], "ja")).toBe("ききとりの会議");
  });
});

describe("whisperPrompt", () => {
  it("lists names then terms in order", () => {
    expect(whisperPrompt(["Anna"], ["Honey Cake", "Apprentices"])).toBe("Anna, Honey Cake, Apprentices.");
    expect(whisperPrompt([], [])).toBeUndefined();
  });

  it("stays within Whisper's prompt budget", () => {
    const terms = Array.from({ length: 500 }, (_, i) => `Term number ${i} of the glossary`);
    const prompt = whisperPrompt(["Anna"], terms) as string;
    expect(approxWhisperTokens(prompt)).toBeLessThanOrEqual(WHISPER_PROMPT_TOKENS);
    expect(prompt.startsWith("Anna, Term number 0 of the glossary, Term number 1")).toBe(true);
    expect(prompt).not.toContain("Term number 499");
  });
});
