import { planChunks } from "../src/audio.ts";
import { PocketSphinxEngine } from "../src/engines/pocketsphinx.ts";
import { chunkProgress } from "../src/handlers/transcribe.ts";

describe("planChunks", () => {
  it("keeps a short recording whole", () => {
    expect(planChunks(20, [], 30)).toEqual([{ start: 0, end: 20 }]);
    expect(planChunks(41, [], 30)).toEqual([{ start: 0, end: 41 }]);
  });

  it("cuts in the middle of the silence nearest to the target", () => {
    const silences = [
      { start: 10, end: 11 },
      { start: 27, end: 28 },
      { start: 33, end: 35 },
      { start: 58, end: 58.6 },
    ];
    expect(planChunks(90, silences, 30)).toEqual([
      { start: 0, end: 27.5 },
      { start: 27.5, end: 58.3 },
      { start: 58.3, end: 90 },
    ]);
  });

  it("falls back to hard cuts without silences and joins a short tail", () => {
    expect(planChunks(95, [], 30)).toEqual([
      { start: 0, end: 30 },
      { start: 30, end: 60 },
      { start: 60, end: 95 },
    ]);
    expect(planChunks(65, [], 30)).toEqual([
      { start: 0, end: 30 },
      { start: 30, end: 65 },
    ]);
  });

  it("covers the whole recording without gaps or overlaps", () => {
    const silences = Array.from({ length: 60 }, (_, i) => ({ start: i * 9.7, end: i * 9.7 + 0.4 }));
    const plan = planChunks(600, silences, 30);
    expect(plan[0].start).toBe(0);
    expect(plan.at(-1)!.end).toBe(600);
    for (let i = 1; i < plan.length; i++) expect(plan[i].start).toBe(plan[i - 1].end);
    for (const c of plan) expect(c.end - c.start).toBeLessThanOrEqual(42);
  });

  it("returns nothing for an empty recording", () => {
    expect(planChunks(0, [], 30)).toEqual([]);
  });
});

describe("chunkProgress", () => {
  it("rises from 5 to 99 as chunks finish", () => {
    expect([chunkProgress(0, 4), chunkProgress(1, 4), chunkProgress(2, 4), chunkProgress(4, 4)]).toEqual([
      5, 28, 52, 99,
    ]);
    expect(chunkProgress(0, 0)).toBe(5);
  });
});

describe("pocketsphinx engine", () => {
  it("refuses other languages with a message naming the setting", async () => {
    const engine = new PocketSphinxEngine({ bin: "pocketsphinx_continuous", modelDir: "/nonexistent" });
    await expect(engine.transcribe("/nonexistent.wav", { language: "ja", fileType: "meeting" })).rejects.toMatchObject({
      code: "TRANSCRIPTION_LANGUAGE_UNSUPPORTED",
      retryable: false,
      message: expect.stringContaining("TRANSCRIPTION_ENGINE=openai"),
    });
  });
});
