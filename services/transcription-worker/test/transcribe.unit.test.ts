import { parseAudioLanguage, speechRefuses } from "@kikitori/shared";
import { cleanSegments, collapseRepeats } from "../src/cleanup.ts";
import { toResult } from "../src/engines/openai.ts";
import { PocketSphinxEngine, parsePocketSphinxTimes } from "../src/engines/pocketsphinx.ts";
import { cpuProblem } from "../src/engines/whisper.ts";
import { partsEta, placeSegments } from "../src/handlers/chunk.ts";
import { chunkProgress, joinSegments } from "../src/handlers/transcribe.ts";
import { readWavMono16k } from "../src/wav.ts";

describe("chunkProgress", () => {
  it("rises from the parts stage's start (8) to 99 as chunks finish", () => {
    expect([chunkProgress(0, 4), chunkProgress(1, 4), chunkProgress(2, 4), chunkProgress(4, 4)]).toEqual([
      8, 30, 53, 99,
    ]);
    expect(chunkProgress(0, 0)).toBe(5);
  });
});

describe("partsEta", () => {
  const at = (s: number) => new Date(1_000_000 + s * 1000);
  it("measures the rate from when the first part began, not from the job's start", () => {
    // Parts of 30 s; the first began at 100 s (done at 110 s after 10 s of engine time), now 130 s:
    // 30 s of wall time for 60 s of audio done, 60 s of audio left → 30 s.
    const chunks = [
      { startSeconds: 0, endSeconds: 30, doneAt: at(110), engineSeconds: 10 },
      { startSeconds: 30, endSeconds: 60, doneAt: at(125), engineSeconds: 12 },
      { startSeconds: 60, endSeconds: 90, doneAt: null, engineSeconds: null },
      { startSeconds: 90, endSeconds: 120, doneAt: null, engineSeconds: null },
    ];
    expect(partsEta(chunks, at(130), 120, 60)).toBe(30);
  });

  it("with parts side by side, counts the parts already running as under way", () => {
    // Three parts of 13 s on three slots, all begun at 0 s; the first is done at 10.4 s after 10.4 s of
    // engine time (0.8 s per audio second). The other two began with it: they end about now, not in 21 s.
    const chunks = [
      { startSeconds: 0, endSeconds: 13, doneAt: at(10.4), engineSeconds: 10.4 },
      { startSeconds: 13, endSeconds: 26, doneAt: null, engineSeconds: null },
      { startSeconds: 26, endSeconds: 39, doneAt: null, engineSeconds: null },
    ];
    expect(partsEta(chunks, at(10.4), 39, 13)).toBe(21);
    expect(partsEta(chunks, at(10.4), 39, 13, 3)).toBe(1);
    // Two slots: the third part waits for the first slot (free at 10.4 s) and takes 10.4 s.
    expect(partsEta(chunks, at(10.4), 39, 13, 2)).toBe(10);
    // Parts queued behind the running ones get their full time: six parts on two slots, two done.
    const six = Array.from({ length: 6 }, (_, i) => ({
      startSeconds: i * 10,
      endSeconds: (i + 1) * 10,
      doneAt: i < 2 ? at(10) : null,
      engineSeconds: i < 2 ? 10 : null,
    }));
    // 1 s per audio second; four parts of 10 s left on two slots from 10 s: 20 s.
    expect(partsEta(six, at(10), 60, 20, 2)).toBe(20);
  });

  it("is unknown before any part is done and zero when all are", () => {
    const chunk = { startSeconds: 0, endSeconds: 30, doneAt: null, engineSeconds: null };
    expect(partsEta([chunk], at(5), 30, 0)).toBeNull();
    expect(partsEta([{ ...chunk, doneAt: at(5), engineSeconds: 2 }], at(5), 30, 30)).toBe(0);
  });
});

describe("pocketsphinx engine", () => {
  it("refuses other languages with a message naming the setting", async () => {
    const engine = new PocketSphinxEngine({ bin: "pocketsphinx_continuous", modelDir: "/nonexistent" });
    await expect(engine.transcribe("/nonexistent.wav", { language: "ja", fileType: "meeting" })).rejects.toMatchObject({
      code: "TRANSCRIPTION_LANGUAGE_UNSUPPORTED",
      retryable: false,
      message: expect.stringContaining("WHISPER_MODEL"),
    });
  });
});

describe("pocketsphinx timed output", () => {
  it("makes one segment per utterance with word times, without markers or pronunciation variants", () => {
    const out = [
      "thank you for joining",
      "<s> 0.090 0.160 0.999700",
      "thank 0.170 0.520 0.916760",
      "you 0.530 0.640 0.986195",
      "<sil> 0.650 0.810 0.999700",
      "for 0.820 0.900 0.999700",
      "joining 0.910 1.290 0.999700",
      "</s> 1.300 1.440 0.999700",
      "the end",
      "<s> 5.370 5.460 1.000200",
      "the(2) 5.470 5.640 0.991634",
      "[NOISE] 5.650 5.700 0.5",
      "end 5.710 6.100 0.973456",
      "</s> 6.110 6.200 1.0",
    ].join("\n");
    const segs = parsePocketSphinxTimes(out);
    expect(segs.map((s) => [s.start, s.end, s.text])).toEqual([
      [0.17, 1.29, "thank you for joining"],
      [5.47, 6.1, "the end"],
    ]);
    expect(segs[1].words).toEqual([
      { start: 5.47, end: 5.64, text: "the" },
      { start: 5.71, end: 6.1, text: "end" },
    ]);
  });
});

describe("segments on the recording's time line", () => {
  it("offsets by the chunk start, clamps to the chunk, and spreads plain text over the chunk", () => {
    const chunk = { startSeconds: 30, endSeconds: 58 };
    expect(
      placeSegments(
        [
          { start: 0.5, end: 4, text: " Hello " },
          { start: 27, end: 31, text: "late" },
          { start: 0, end: 0, text: "plain" },
        ],
        chunk,
      ),
    ).toEqual([
      { start: 30.5, end: 34, text: "Hello" },
      { start: 57, end: 58, text: "late" },
      { start: 30, end: 58, text: "plain" },
    ]);
  });

  it("joins chunk texts with spaces, or without for Japanese", () => {
    const chunks = [
      { segments: [{ start: 0, end: 1, text: "こんにちは。" }] },
      { segments: [{ start: 2, end: 3, text: "元気です。" }] },
    ];
    expect(joinSegments(chunks, "ja").text).toBe("こんにちは。元気です。");
    expect(joinSegments(chunks, "en").text).toBe("こんにちは。 元気です。");
    expect(joinSegments([{ segments: null }, ...chunks], "ja").segments).toHaveLength(2);
  });
});

describe("Whisper's failure modes", () => {
  const speech = [{ start: 0, end: 10 }];
  it("drops closing phrases invented over silence, keeps them over speech", () => {
    const segs = [
      { start: 1, end: 5, text: "We started in 2010." },
      { start: 4, end: 6, text: "Thank you." },
      { start: 12, end: 14, text: "Thank you." },
      { start: 20, end: 25, text: "ご視聴ありがとうございました" },
    ];
    expect(cleanSegments(segs, speech).map((s) => s.text)).toEqual(["We started in 2010.", "Thank you."]);
  });

  it("drops subtitle credits anywhere, and text entirely outside speech", () => {
    const segs = [
      { start: 1, end: 3, text: "Subtitles by the Amara.org community" },
      { start: 30, end: 33, text: "Something nobody said" },
      { start: 2, end: 4, text: "Real words." },
    ];
    expect(cleanSegments(segs, speech).map((s) => s.text)).toEqual(["Real words."]);
    // Without VAD spans, a closing phrase is dropped only at the end of the chunk.
    expect(
      cleanSegments(
        [
          { start: 0, end: 1, text: "Thank you." },
          { start: 1, end: 2, text: "Next question." },
          { start: 2, end: 3, text: "Thank you." },
        ],
        null,
      ).map((s) => s.text),
    ).toEqual(["Thank you.", "Next question."]);
  });

  it("collapses repetition loops of words and phrases, in any script", () => {
    expect(collapseRepeats("I think the the the the the the the market is")).toBe("I think the market is");
    expect(collapseRepeats("and then we went home and then we went home and then we went home.")).toBe(
      "and then we went home.",
    );
    expect(collapseRepeats("はい、そうです。そうです。そうです。そうです。")).toBe("はい、そうです。");
    expect(collapseRepeats("No, no, we never did that.")).toBe("No, no, we never did that.");
  });

  it("keeps a segment said twice, drops the third and later copies", () => {
    const segs = Array.from({ length: 5 }, (_, i) => ({ start: i, end: i + 1, text: "Yes." }));
    expect(cleanSegments(segs, speech)).toHaveLength(2);
  });
});

describe("speech engine facts", () => {
  it("refuses a CPU without AVX2 with a clear message, accepts one with it, and ignores other architectures", () => {
    expect(cpuProblem("flags\t\t: fpu sse sse2 avx\n", "x64")).toMatch(/lacks avx2, fma, f16c/);
    expect(cpuProblem("flags\t\t: fpu avx avx2 fma f16c\n", "x64")).toBeNull();
    expect(cpuProblem("Features: neon\n", "arm64")).toBeNull();
  });

  it("reads an OpenAI verbose_json answer as segments, plain json as one segment", () => {
    expect(
      toResult({ language: "japanese", segments: [{ start: 0, end: 2.5, text: " こんにちは " }] }, undefined),
    ).toEqual({ language: "ja", segments: [{ start: 0, end: 2.5, text: "こんにちは" }] });
    expect(toResult({ text: "Hello there." }, "en")).toEqual({
      language: "en",
      segments: [{ start: 0, end: 0, text: "Hello there." }],
    });
    expect(toResult({ text: "" }, "de").segments).toEqual([]);
  });

  it("gives each segment the server's word times that fall in it, when they spell its text", () => {
    const r = toResult(
      {
        language: "english",
        segments: [
          { start: 0, end: 2, text: " Hello, world." },
          { start: 2, end: 4, text: " Bye now." },
        ],
        words: [
          { word: "Hello", start: 0.1, end: 0.7 },
          { word: "world", start: 0.9, end: 1.8 },
          { word: "Bye", start: 2.2, end: 2.6 },
          { word: "then", start: 2.9, end: 3.5 },
        ],
      },
      undefined,
    );
    expect(r.segments[0].words).toEqual([
      { start: 0.1, end: 0.7, text: "Hello" },
      { start: 0.9, end: 1.8, text: "world" },
    ]);
    // "Bye then" does not spell "Bye now.": no word times rather than wrong ones.
    expect(r.segments[1].words).toBeUndefined();
  });

  it("parses audio languages: codes, regions, aliases and auto; refuses the rest", () => {
    expect(["ja", "pt-BR", "ZH-hant", "auto", "jv", "yue", "xx", ""].map(parseAudioLanguage)).toEqual([
      "ja",
      "pt",
      "zh",
      "auto",
      "jw",
      "yue",
      null,
      null,
    ]);
    const english = {
      available: true,
      engine: "pocketsphinx" as const,
      model: "en-us",
      languages: ["en"],
      notice: null,
    };
    expect([speechRefuses(english, "de"), speechRefuses(english, "en"), speechRefuses(english, "auto")]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it("reads 16-bit mono WAV with extra chunks before the data", () => {
    const data = Buffer.alloc(4);
    data.writeInt16LE(16384, 0);
    data.writeInt16LE(-32768, 2);
    const list = Buffer.concat([Buffer.from("LIST"), Buffer.from([4, 0, 0, 0]), Buffer.from("INFO")]);
    const fmt = Buffer.alloc(24);
    fmt.write("fmt ", 0);
    fmt.writeUInt32LE(16, 4);
    fmt.writeUInt16LE(1, 8);
    fmt.writeUInt16LE(1, 10);
    fmt.writeUInt32LE(16000, 12);
    fmt.writeUInt32LE(32000, 16);
    fmt.writeUInt16LE(2, 20);
    fmt.writeUInt16LE(16, 22);
    const head = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WAVE")]);
    const dataHead = Buffer.concat([Buffer.from("data"), Buffer.from([4, 0, 0, 0])]);
    expect([...readWavMono16k(Buffer.concat([head, fmt, list, dataHead, data]))]).toEqual([0.5, -1]);
    expect(() => readWavMono16k(Buffer.from("nope"))).toThrow(/RIFF/);
  });
});
