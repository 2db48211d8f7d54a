import { diarizationWindows, linkWindowVoices } from "../src/diarization/windows.ts";

describe("windows of a long recording", () => {
  it("is one window when the speech fits, from the first speech to the last", () => {
    expect(
      diarizationWindows(
        [
          { start: 3, end: 10 },
          { start: 12, end: 50 },
        ],
        60,
      ),
    ).toEqual([{ start: 3, end: 50 }]);
    expect(diarizationWindows([], 60)).toEqual([]);
  });

  it("cuts in the middle of the gap between spans, never inside speech when a gap allows", () => {
    const speech = [
      { start: 0, end: 20 },
      { start: 30, end: 50 },
      { start: 70, end: 100 },
      { start: 104, end: 140 },
    ];
    const w = diarizationWindows(speech, 60);
    expect(w).toEqual([
      { start: 0, end: 60 },
      { start: 60, end: 102 },
      { start: 102, end: 140 },
    ]);
    for (const s of speech) expect(w.some((x) => x.start <= s.start && s.end <= x.end)).toBe(true);
    for (const x of w) expect(x.end - x.start).toBeLessThanOrEqual(60);
  });

  it("cuts a span longer than a window inside it, covering all of it", () => {
    const w = diarizationWindows([{ start: 5, end: 150 }], 60);
    expect(w).toEqual([
      { start: 5, end: 65 },
      { start: 65, end: 125 },
      { start: 125, end: 150 },
    ]);
  });

  it("is thirty windows for ten hours of continuous speech", () => {
    const speech = Array.from({ length: 3600 }, (_, i) => ({ start: i * 10, end: i * 10 + 9 }));
    const w = diarizationWindows(speech);
    expect(w.length).toBe(30);
    expect(w.at(-1)?.end).toBe(35_999);
  });
});

describe("linking the windows' voices", () => {
  const a = [1, 0, 0, 0.1];
  const b = [0, 1, 0, 0.1];
  const c = [0, 0, 1, 0.1];
  const near = (v: number[], e: number) => v.map((x, i) => x + (i === 3 ? e : 0));

  it("joins the same voice across windows and keeps the voices of one window apart", () => {
    const voices = [
      { window: 0, local: 0, vector: a },
      { window: 0, local: 1, vector: b },
      { window: 1, local: 0, vector: near(b, 0.05) },
      { window: 1, local: 1, vector: near(a, 0.02) },
      { window: 2, local: 0, vector: near(a, 0.1) },
    ];
    expect(linkWindowVoices(voices, { threshold: 0.5, maxSpeakers: 6 })).toEqual([0, 1, 1, 0, 0]);
    expect(linkWindowVoices(voices, { speakers: 2, threshold: 0.5, maxSpeakers: 6 })).toEqual([0, 1, 1, 0, 0]);
  });

  it("keeps a new voice new without a count, and merges down to the count when given", () => {
    const voices = [
      { window: 0, local: 0, vector: a },
      { window: 1, local: 0, vector: near(a, 0.01) },
      { window: 1, local: 1, vector: c },
    ];
    expect(linkWindowVoices(voices, { threshold: 0.5, maxSpeakers: 6 })).toEqual([0, 0, 1]);
    expect(linkWindowVoices(voices, { speakers: 1, threshold: 0.5, maxSpeakers: 6 })).toEqual([0, 0, 0]);
  });

  it("never answers more speakers than the most there can be", () => {
    const voices = Array.from({ length: 10 }, (_, i) => ({
      window: i,
      local: 0,
      vector: Array.from({ length: 10 }, (_, j) => (i === j ? 1 : 0)),
    }));
    const labels = linkWindowVoices(voices, { threshold: 0.5, maxSpeakers: 6 });
    expect(new Set(labels).size).toBe(6);
    expect(labels[0]).toBe(0);
  });
});
