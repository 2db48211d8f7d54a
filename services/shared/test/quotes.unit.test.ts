import { describe, expect, it } from "@jest/globals";
import { type ExportSource, exportBlocks, quoteCitation, renderExport } from "../src/export.ts";
import { createQuoteSchema, locateQuote, patchQuoteSchema, quoteSpan, selectionRange } from "../src/quotes.ts";
import type { TranscriptSegment } from "../src/speech.ts";

const en: TranscriptSegment[] = [
  { start: 0.5, end: 2, text: "So how did it start?", speaker: 0 },
  { start: 2.5, end: 6, text: "It started in a garage, with two friends.", speaker: 1 },
  { start: 6.2, end: 7, text: "Really?", speaker: 0 },
];

describe("quoteSpan without word times (times spread over the characters)", () => {
  it("an answer's time range gives that answer's words and speaker", () => {
    expect(quoteSpan(en, 2.5, 6, "en")).toEqual({ text: "It started in a garage, with two friends.", speaker: 1 });
  });

  it("a range over part of a segment gives the whole words whose middle lies inside", () => {
    const seg = en[1];
    const text = seg.text;
    const from = text.indexOf("garage");
    const range = selectionRange(seg, text, from + 2, from + 4, "en");
    expect(range).not.toBeNull();
    if (!range) return;
    expect(quoteSpan(en, range.start, range.end, "en")).toEqual({ text: "garage,", speaker: 1 });
    const wide = selectionRange(seg, text, text.indexOf("started"), text.indexOf("garage") + 3, "en");
    if (!wide) throw new Error("no range");
    expect(quoteSpan(en, wide.start, wide.end, "en").text).toBe("started in a garage,");
  });

  it("a range over two speakers joins their words and names the one who says most", () => {
    expect(quoteSpan(en, 0.5, 7, "en")).toEqual({
      text: "So how did it start? It started in a garage, with two friends. Really?",
      speaker: 1,
    });
  });

  it("a range where nothing is said gives no text", () => {
    expect(quoteSpan(en, 7.5, 9, "en")).toEqual({ text: "", speaker: null });
    expect(quoteSpan([{ start: 0, end: 2, text: "Hello there." }], 0, 2, "en")).toEqual({
      text: "Hello there.",
      speaker: null,
    });
  });
});

describe("quoteSpan with word times", () => {
  const words: TranscriptSegment[] = [
    {
      start: 10,
      end: 14,
      text: "We baked bread, mostly.",
      speaker: 1,
      words: [
        { start: 10, end: 10.4, text: " We" },
        { start: 10.4, end: 11, text: " baked" },
        // The word time is late in the segment: a proportional estimate would put "bread" earlier.
        { start: 12.5, end: 13.2, text: " bread" },
        { start: 13.2, end: 14, text: ", mostly." },
      ],
    },
  ];

  it("takes the words by their own times and keeps the punctuation after the last", () => {
    expect(quoteSpan(words, 12.4, 13.3, "en")).toEqual({ text: "bread,", speaker: 1 });
    expect(quoteSpan(words, 10, 11, "en").text).toBe("We baked");
  });

  it("a selection of a word maps to that word's time", () => {
    const seg = words[0];
    expect(selectionRange(seg, seg.text, seg.text.indexOf("bread"), seg.text.indexOf("bread") + 5, "en")).toEqual({
      start: 12.5,
      end: 13.2,
    });
  });

  it("an edited segment (words no longer in its text) falls back to the estimate", () => {
    const edited = { ...words[0], text: "We made sourdough." };
    expect(quoteSpan([edited], 10, 14, "en").text).toBe("We made sourdough.");
    const range = selectionRange(edited, edited.text, 3, 7, "en");
    if (!range) throw new Error("no range");
    expect(quoteSpan([edited], range.start, range.end, "en").text).toBe("made");
  });
});

describe("quoteSpan in Japanese (no spaces)", () => {
  const ja: TranscriptSegment[] = [
    { start: 0, end: 2, text: "始めたきっかけは？", speaker: 0 },
    { start: 2, end: 4, text: "ガレージでした。", speaker: 1 },
    { start: 4, end: 6, text: "友達と二人で。", speaker: 1 },
  ];

  it("joins segments without a space", () => {
    expect(quoteSpan(ja, 2, 6, "ja")).toEqual({ text: "ガレージでした。友達と二人で。", speaker: 1 });
  });

  it("a selection of characters is kept exactly, with the punctuation after it", () => {
    const seg = ja[2];
    const range = selectionRange(seg, seg.text, 0, 2, "ja");
    if (!range) throw new Error("no range");
    expect(quoteSpan(ja, range.start, range.end, "ja").text).toBe("友達");
    const tail = selectionRange(seg, seg.text, 3, 6, "ja");
    if (!tail) throw new Error("no range");
    expect(quoteSpan(ja, tail.start, tail.end, "ja").text).toBe("二人で。");
  });
});

describe("the quote's citation and export", () => {
  it('is "text" — Name [mm:ss], hh:mm:ss from an hour on, 「…」 in Japanese', () => {
    expect(quoteCitation({ text: "It started in a garage.", speaker: "Dr. Tanaka", start: 2.5 }, "en")).toBe(
      '"It started in a garage." — Dr. Tanaka [00:02]',
    );
    expect(quoteCitation({ text: "Yes.", speaker: null, start: 3725 }, "en")).toBe('"Yes." [01:02:05]');
    expect(quoteCitation({ text: "ガレージでした。", speaker: "田中", start: 62 }, "ja")).toBe(
      "「ガレージでした。」 — 田中 [01:02]",
    );
  });

  const src: ExportSource = {
    title: "Interview *Anna*",
    language: "en",
    speakers: [],
    segments: en,
    interview: null,
    transcript: null,
    speakerLabel: (n) => `Speaker ${n}`,
    quotes: [
      {
        start: 2.5,
        speaker: "Dr. Tanaka",
        text: "It started in a garage.",
        note: "Lead quote",
        tags: ["origin", "a b"],
      },
      { start: 6.2, speaker: null, text: "Really?", note: null, tags: [] },
    ],
  };

  it("renders TXT and Markdown with the citation, note and tags", () => {
    expect(renderExport(src, "txt", "quotes")).toBe(
      '"It started in a garage." — Dr. Tanaka [00:02]\nLead quote\n#origin #a b\n\n"Really?" [00:06]\n',
    );
    expect(renderExport(src, "md", "quotes")).toBe(
      '# Interview \\*Anna\\*\n\n> "It started in a garage." — Dr. Tanaka [00:02]\n\nLead quote\n\n`origin` `a b`\n\n> "Really?" [00:06]\n',
    );
    expect(exportBlocks(src, "quotes").map((b) => b.quote?.citation)).toEqual([
      '"It started in a garage." — Dr. Tanaka [00:02]',
      '"Really?" [00:06]',
    ]);
  });
});

describe("quote requests", () => {
  it("refuse an empty or reversed range, a span over 10 minutes, too many tags; tidy tags", () => {
    expect(createQuoteSchema.safeParse({ start: 5, end: 5 }).success).toBe(false);
    expect(createQuoteSchema.safeParse({ start: 6, end: 5 }).success).toBe(false);
    expect(createQuoteSchema.safeParse({ start: -1, end: 5 }).success).toBe(false);
    expect(createQuoteSchema.safeParse({ start: 0, end: 601 }).success).toBe(false);
    expect(createQuoteSchema.safeParse({ start: 0, end: 5, note: "x".repeat(2001) }).success).toBe(false);
    expect(createQuoteSchema.safeParse({ start: 0, end: 5, tags: Array(11).fill("t") }).success).toBe(false);
    expect(createQuoteSchema.safeParse({ start: 0, end: 5, tags: ["x".repeat(41)] }).success).toBe(false);
    expect(createQuoteSchema.parse({ start: 0, end: 5, tags: [" Lead ", "lead", "", "Risk"] }).tags).toEqual([
      "Lead",
      "Risk",
    ]);
    expect(patchQuoteSchema.safeParse({}).success).toBe(false);
    expect(patchQuoteSchema.safeParse({ note: null }).success).toBe(true);
  });
});

describe("locateQuote: a passage of the interview text found in the transcript", () => {
  const said: TranscriptSegment[] = [
    { start: 0, end: 3, text: "So, um, how did it start?", speaker: 0 },
    { start: 3, end: 9, text: "Well, we, we started the business in a, uh, small garage.", speaker: 1 },
    { start: 9, end: 12, text: "Ten years ago.", speaker: 1 },
  ];

  it("finds the cleaned-up words (fillers and repetitions skipped), label left out, across lines", () => {
    const range = locateQuote(said, "Ben: We started the business in a small garage ten years ago.", "en");
    if (!range) throw new Error("not found");
    expect(quoteSpan(said, range.start, range.end, "en")).toEqual({
      text: "we started the business in a, uh, small garage. Ten years ago.",
      speaker: 1,
    });
  });

  it("is null for words that were not said", () => {
    expect(locateQuote(said, "We sold the company to a bank last year.", "en")).toBeNull();
    expect(locateQuote(said, "  ", "en")).toBeNull();
  });

  it("works in Japanese by characters", () => {
    const ja: TranscriptSegment[] = [
      { start: 0, end: 4, text: "えーと、ガレージで始めました。", speaker: 1 },
      { start: 4, end: 6, text: "友達と二人で。", speaker: 1 },
    ];
    const range = locateQuote(ja, "田中：ガレージで始めました。", "ja");
    if (!range) throw new Error("not found");
    expect(quoteSpan(ja, range.start, range.end, "ja").text).toBe("ガレージで始めました。");
  });
});
