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

  it("an inflected form still supports a sentence but marks it reworded; a different word with the same start is not a form", () => {
    const inflected = en("she studies interviews", "She studied the interview.");
    expect(inflected.invented).toEqual([]);
    expect(inflected.reworded).toHaveLength(1);
    expect(inflected.reworded[0].words).toEqual(expect.arrayContaining(["studied", "interview"]));
    const other = en("an international school", "An interview school.");
    expect([...other.invented, ...other.reworded].flatMap((f) => f.words)).toEqual(["interview"]);
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
      {
        text: "The flour came from Hokkaido farms.",
        startSeconds: 3.5,
        endSeconds: 3.5,
        words: ["flour", "Hokkaido", "farms"],
      },
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

  // Two voices, timed: the interviewer (0) asks, the interviewee (1) answers.
  const SPEAKERS = [
    { id: 0, name: "Anna" },
    { id: 1, name: "Ben" },
  ];
  const SEGMENTS = [
    { start: 0, end: 3, speaker: 0, text: "So um did you take all of the money from the fund?" },
    { start: 3, end: 8, speaker: 1, text: "No, I I didn't. I took half of it and I'm not sorry." },
    { start: 8, end: 11, speaker: 0, text: "Uh who took the rest of it?" },
    { start: 11, end: 16, speaker: 1, text: "My partner did, we'd agreed on that in 2019." },
    { start: 16, end: 20, speaker: 0, text: "And where is the money now?" },
    { start: 20, end: 26, speaker: 1, text: "Yes, it is all in a bank in Geneva." },
  ];
  const FAITHFUL = [
    "Anna: Did you take all of the money from the fund?",
    "Ben: No, I didn't. I took half of it and I'm not sorry.",
    "Anna: Who took the rest of it?",
    "Ben: My partner did, we'd agreed on that in 2019.",
    "Anna: And where is the money now?",
    "Ben: Yes, it is all in a bank in Geneva.",
  ];
  const timed = (interview: string[]) =>
    en(SEGMENTS.map((s) => s.text).join(" "), interview.join("\n\n"), { segments: SEGMENTS, speakers: SPEAKERS });

  it("aligns each sentence to its stretch: time, speaker heard, support; a clean verbatim text raises no flag", () => {
    const r = timed(FAITHFUL);
    expect(r).toMatchObject({ figure: 1, invented: [], misattributed: [], reworded: [], dropped: [] });
    expect(r.sentenceCount).toBe(7);
    expect(r.sentences[1]).toMatchObject({ startSeconds: 3, endSeconds: 8, speaker: "Ben", support: 1 });
    expect(r.sentences.map((s) => s.speaker)).toEqual(["Anna", "Ben", "Ben", "Anna", "Ben", "Anna", "Ben"]);
  });

  it("flags an answer made only of words said elsewhere as invented, with the place it stands", () => {
    const planted = [...FAITHFUL.slice(0, 4), "Ben: Yes, I took all of it.", ...FAITHFUL.slice(4)];
    // Every word of it was said somewhere in the recording.
    const said = new Set(SEGMENTS.flatMap((s) => s.text.toLowerCase().match(/[\p{L}']+/gu) ?? []));
    expect(["yes", "i", "took", "all", "of", "it"].every((w) => said.has(w))).toBe(true);
    const r = timed(planted);
    expect(r.invented.map((f) => f.sentence)).toEqual(["Yes, I took all of it."]);
    expect(r.invented[0]).toMatchObject({ startSeconds: 16, endSeconds: 16 });
    expect(r.misattributed).toEqual([]);
    expect(r.figure).toBeCloseTo(7 / 8, 3);
  });

  it("lists an answer relabelled with the interviewer's name as misattributed, with the voice heard", () => {
    const planted = [...FAITHFUL];
    planted[3] = planted[3].replace("Ben:", "Anna:");
    const r = timed(planted);
    expect(r.misattributed).toEqual([
      expect.objectContaining({
        sentence: "My partner did, we'd agreed on that in 2019.",
        label: "Anna",
        heard: "Ben",
        startSeconds: 11,
        endSeconds: 16,
      }),
    ]);
    expect(r.invented).toEqual([]);
  });

  it("lists a dropped answer with its time, and an expanded contraction as reworded (not invented)", () => {
    const dropped = timed([...FAITHFUL.slice(0, 3), ...FAITHFUL.slice(4)]);
    expect(dropped.dropped.map((d) => [d.text, d.startSeconds, d.endSeconds])).toEqual([
      ["My partner did, we'd agreed on that in 2019.", 11, 16],
    ]);
    expect(dropped.invented).toEqual([]);
    const expanded = [...FAITHFUL];
    expanded[1] = "Ben: No, I did not. I took half of it and I am not sorry.";
    const r = timed(expanded);
    expect(r.invented).toEqual([]);
    expect(r.reworded.map((f) => [f.sentence, f.words, f.startSeconds])).toEqual([
      ["No, I did not.", ["did", "not"], 3],
      ["I took half of it and I am not sorry.", ["I", "am"], 3],
    ]);
    // The marks point at the changed words only (the second "I", "am"), with what was said beside.
    expect(r.reworded[1].marks).toEqual([
      [22, 23],
      [24, 26],
    ]);
    expect(r.reworded[1].heardText).toBe("I took half of it and I'm not sorry");
  });

  describe("in Japanese (no spaces)", () => {
    const JA_SPEAKERS = [
      { id: 0, name: "佐藤" },
      { id: 1, name: "田中" },
    ];
    const JA_SEGMENTS = [
      { start: 0, end: 4, speaker: 0, text: "えーと、基金のお金を全部受け取りましたか？" },
      { start: 4, end: 9, speaker: 1, text: "いいえ、半分だけ受け取りました。後悔はしていません。" },
      { start: 9, end: 12, speaker: 0, text: "あのー、残りは誰が受け取ったんですか？" },
      { start: 12, end: 17, speaker: 1, text: "相棒です。二〇一九年に決めていました。" },
      { start: 17, end: 20, speaker: 0, text: "お金は今どこにありますか？" },
      { start: 20, end: 25, speaker: 1, text: "ジュネーブの銀行にあります。" },
    ];
    const JA = [
      "佐藤：基金のお金を全部受け取りましたか？",
      "田中：いいえ、半分だけ受け取りました。後悔はしていません。",
      "佐藤：残りは誰が受け取ったんですか？",
      "田中：相棒です。二〇一九年に決めていました。",
      "佐藤：お金は今どこにありますか？",
      "田中：ジュネーブの銀行にあります。",
    ];
    const ja = (interview: string[]) =>
      fidelityReport(JA_SEGMENTS.map((s) => s.text).join(""), interview.join("\n\n"), {
        language: "ja",
        segments: JA_SEGMENTS,
        speakers: JA_SPEAKERS,
      });

    it("a clean text raises no flag", () => {
      expect(ja(JA)).toMatchObject({ figure: 1, invented: [], misattributed: [], reworded: [], dropped: [] });
    });

    it("catches an invented answer from words said elsewhere, a relabelled answer and a dropped answer", () => {
      const invented = ja([...JA.slice(0, 4), "田中：お金は全部受け取りました。", ...JA.slice(4)]);
      expect(invented.invented.map((f) => f.sentence)).toEqual(["お金は全部受け取りました。"]);

      const relabelled = [...JA];
      relabelled[5] = relabelled[5].replace("田中", "佐藤");
      expect(ja(relabelled).misattributed).toEqual([
        expect.objectContaining({ sentence: "ジュネーブの銀行にあります。", label: "佐藤", heard: "田中" }),
      ]);

      const dropped = ja([...JA.slice(0, 3), ...JA.slice(4)]);
      expect(dropped.dropped.map((d) => d.startSeconds)).toEqual([12]);
    });
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
