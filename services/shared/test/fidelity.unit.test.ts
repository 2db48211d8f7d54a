import { describe, expect, it } from "@jest/globals";
import { fidelityReport } from "../src/fidelity.ts";
import { matchSnippet } from "../src/workspace.ts";

const en = (raw: string, corrected: string | null, extra: Partial<Parameters<typeof fidelityReport>[2]> = {}) =>
  fidelityReport(raw, corrected, { language: "en", ...extra });

describe("fidelityReport", () => {
  it("a faithful clean-up traces every content word: fillers, case and punctuation do not count", () => {
    const r = en(
      "so um we we opened the bakery in osaka uh in 2019 you know",
      "We opened the bakery in Osaka in 2019.",
    );
    expect(r.figure).toBe(1);
    expect(r.invented).toEqual([]);
    expect(r.dropped).toEqual([]);
    expect(r.diff?.filter((d) => d.op === "added")).toEqual([]);
    expect(r.diff?.some((d) => d.op === "removed" && d.text.includes("um"))).toBe(true);
  });

  it("flags a sentence with words the recording does not have, and lowers the figure", () => {
    const r = en(
      "We opened the bakery in Osaka with two ovens.",
      "We opened the bakery in Osaka with two ovens. The mayor gave us 3 million yen.",
    );
    expect(r.invented).toHaveLength(1);
    expect(r.invented[0]).toMatchObject({ sentence: "The mayor gave us 3 million yen." });
    expect(r.invented[0].words).toEqual(expect.arrayContaining(["mayor", "3", "yen"]));
    // The offsets point at the sentence in the corrected text.
    const corrected = "We opened the bakery in Osaka with two ovens. The mayor gave us 3 million yen.";
    expect(corrected.slice(r.invented[0].start, r.invented[0].end)).toBe(r.invented[0].sentence);
    expect(r.figure).toBeGreaterThan(0.3);
    expect(r.figure).toBeLessThan(0.8);
  });

  it("accepts inflected forms but not a different word with the same start", () => {
    expect(en("she studies interviews", "She studied the interview.").invented).toEqual([]);
    expect(en("an international school", "An interview school.").invented[0]?.words).toEqual(["interview"]);
  });

  it("does not count speaker labels as content", () => {
    const r = en("how did it start we opened in osaka", "Anna Berg: How did it start?\n\nBen: We opened in Osaka.", {
      speakerNames: ["Anna Berg", "Ben"],
    });
    expect(r.invented).toEqual([]);
    expect(r.figure).toBe(1);
    // A name in the running text is content.
    expect(en("we opened", "Ben opened it.", { speakerNames: ["Ben"] }).invented[0]?.words).toEqual(["Ben"]);
  });

  it("reports raw passages the interview left out, with their times", () => {
    const r = en("We opened in Osaka. The flour came from Hokkaido farms.", "We opened in Osaka.", {
      segments: [
        { start: 0, text: "We opened in Osaka." },
        { start: 3.5, text: "The flour came from Hokkaido farms." },
      ],
    });
    expect(r.dropped).toEqual([
      { text: "The flour came from Hokkaido farms.", startSeconds: 3.5, words: ["flour", "Hokkaido", "farms"] },
    ]);
  });

  it("works on Japanese without spaces", () => {
    const ja = (raw: string, corrected: string) => fidelityReport(raw, corrected, { language: "ja" });
    const faithful = ja("えーと大阪でパン屋を始めました", "大阪でパン屋を始めました。");
    expect(faithful.invented).toEqual([]);
    expect(faithful.figure).toBe(1);
    const invented = ja("大阪でパン屋を始めました", "大阪でパン屋を始めました。市長から三百万円もらいました。");
    expect(invented.invented).toHaveLength(1);
    expect(invented.invented[0].sentence).toBe("市長から三百万円もらいました。");
    expect(invented.diff?.find((d) => d.op === "added")?.text).toContain("市長");
  });

  it("has no figure without an interview text", () => {
    expect(en("some words", null)).toMatchObject({ figure: null, diff: null, invented: [], dropped: [] });
  });
});

describe("matchSnippet", () => {
  const long = `${"Before the interview we talked about the weather for a long while. ".repeat(3)}Then she said the Sourdough starter came from her grandmother in Hokkaido.\n\nAfter that ${"we walked through the old town and looked at the river. ".repeat(3)}`;

  it("cuts around the first match, case-insensitively, with ellipses and whole words", () => {
    const s = matchSnippet(long, "sourdough")!;
    expect(s).toMatch(/^…/);
    expect(s).toMatch(/…$/);
    expect(s).toContain("Sourdough starter");
    expect(s.length).toBeLessThan(200);
    expect(s).not.toMatch(/\n/);
  });

  it("falls back to the longest word of the query that occurs", () => {
    expect(matchSnippet(long, "grandmother zebra")).toContain("grandmother");
    expect(matchSnippet(long, "zebra")).toBeNull();
    expect(matchSnippet(null, "x")).toBeNull();
  });

  it("finds words inside text without spaces, and takes the query literally", () => {
    expect(matchSnippet("大阪でパン屋を始めました。小麦粉は北海道から。", "パン屋")).toBe(
      "大阪でパン屋を始めました。小麦粉は北海道から。",
    );
    expect(matchSnippet("costs 5.0 (a+b)", "(a+b)")).toBe("costs 5.0 (a+b)");
  });
});
