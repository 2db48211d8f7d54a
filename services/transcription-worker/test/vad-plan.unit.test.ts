import { planSpeechChunks, type SpeechChunk, type SpeechSpan } from "../src/vad.ts";

const len = (c: { start: number; end: number }) => c.end - c.start;
const talk = (c: SpeechChunk) => c.speech.reduce((sum, s) => sum + len(s), 0);
const close = (a: number, b: number) => Math.abs(a - b) < 1e-6;

/** Spans of `each` seconds separated by `gaps[i]` (default `gap`), starting at `from`. */
function talkWithPauses(count: number, each: number, gap: number, from = 0.5, gaps: Record<number, number> = {}) {
  const spans: SpeechSpan[] = [];
  let t = from;
  for (let i = 0; i < count; i++) {
    spans.push({ start: t, end: t + each });
    t += each + (gaps[i] ?? gap);
  }
  return spans;
}

/** What breaks the invariants every plan keeps, whatever the input ([] when none). */
function planProblems(plan: SpeechChunk[], spans: SpeechSpan[], duration: number, target = 30, maxGap = 2, pad = 0.2) {
  const problems: string[] = [];
  const fail = (why: string) => problems.push(why);
  for (const [k, c] of plan.entries()) {
    if (len(c) > target + 1e-9) fail(`chunk ${k} is ${len(c)} s`);
    if (c.start < 0 || c.end > duration) fail(`chunk ${k} outside the file`);
    if (k > 0 && c.start < plan[k - 1].end) fail(`chunk ${k} overlaps the previous one`);
    if (c.speech.length === 0) fail(`chunk ${k} has no speech`);
    for (const s of c.speech) if (s.start < c.start || s.end > c.end) fail(`chunk ${k} lists speech outside it`);
  }
  // Every moment of speech is in a chunk and listed as speech there.
  const listed = plan.flatMap((c) => c.speech);
  for (const s of spans) {
    let t = s.start;
    for (const p of listed) if (p.start <= t + 1e-9 && p.end > t) t = p.end;
    if (t < s.end - 1e-9) fail(`speech ${s.start}–${s.end} not covered after ${t}`);
  }
  // Long pauses (minus the padding on each side) are in no chunk.
  for (let i = 1; i < spans.length; i++) {
    const gap = spans[i].start - spans[i - 1].end;
    if (gap <= maxGap) continue;
    const from = spans[i - 1].end + Math.min(pad, gap / 2);
    const to = spans[i].start - Math.min(pad, gap / 2);
    for (const c of plan) if (c.end > from + 1e-9 && c.start < to - 1e-9) fail(`pause ${from}–${to} inside a chunk`);
  }
  return problems;
}

function expectValidPlan(
  plan: SpeechChunk[],
  spans: SpeechSpan[],
  duration: number,
  target = 30,
  maxGap = 2,
  pad = 0.2,
) {
  expect(planProblems(plan, spans, duration, target, maxGap, pad)).toEqual([]);
}

describe("planSpeechChunks", () => {
  it("returns nothing without speech", () => {
    expect(planSpeechChunks([], 120)).toEqual([]);
    expect(planSpeechChunks([{ start: 130, end: 140 }], 120)).toEqual([]);
    expect(planSpeechChunks([{ start: 5, end: 5 }], 120)).toEqual([]);
  });

  it("pads a short recording's speech and clamps it to the file", () => {
    expect(planSpeechChunks([{ start: 0.1, end: 12 }], 12.1)).toEqual([
      { start: 0, end: 12.1, speech: [{ start: 0.1, end: 12 }] },
    ]);
    expect(planSpeechChunks([{ start: 3, end: 9 }], 20, { pad: 0.5 })).toEqual([
      { start: 2.5, end: 9.5, speech: [{ start: 3, end: 9 }] },
    ]);
  });

  it("cuts at the longest pause near the target, in the middle of short pauses", () => {
    // 4 s phrases, 0.3 s pauses, one 1.2 s pause after the 6th phrase (26.0–27.2 s).
    const spans = talkWithPauses(20, 4, 0.3, 0.5, { 5: 1.2 });
    const duration = spans[19].end + 1;
    const plan = planSpeechChunks(spans, duration);
    expectValidPlan(plan, spans, duration);
    expect(plan[0]).toMatchObject({ start: 0.3, end: 26.2 }); // the 1.2 s pause, padded 0.2 s on each side
    expect(plan[1].start).toBe(27);
    // Later cuts fall in 0.3 s pauses, halfway: neighbouring chunks meet without overlapping.
    expect(plan[2].start).toBe(plan[1].end);
    const cut = plan[1].end;
    expect(spans.some((s, i) => i > 0 && close(cut, (spans[i - 1].end + s.start) / 2))).toBe(true);
    // Chunks are as full as the pauses allow: a 4.3 s phrase more would not fit.
    for (const c of plan.slice(0, -1)) expect(len(c)).toBeGreaterThan(30 - 4.3);
  });

  it("leaves long silences out of every chunk", () => {
    const spans = [
      { start: 1, end: 6 },
      { start: 9, end: 12 }, // 3 s silence before
      { start: 13.5, end: 15 }, // 1.5 s: stays inside
      { start: 60, end: 64 }, // 45 s silence before
    ];
    const plan = planSpeechChunks(spans, 70);
    expectValidPlan(plan, spans, 70);
    expect(plan.map((c) => [c.start, c.end])).toEqual([
      [0.8, 6.2],
      [8.8, 15.2],
      [59.8, 64.2],
    ]);
    expect(plan[1].speech).toEqual([spans[1], spans[2]]);
    // A smaller maxGap skips the 1.5 s pause too.
    const strict = planSpeechChunks(spans, 70, { maxGap: 1 });
    expectValidPlan(strict, spans, 70, 30, 1);
    expect(strict).toHaveLength(4);
  });

  it("splits one long monologue evenly into pieces that fit", () => {
    const plan = planSpeechChunks([{ start: 2, end: 75 }], 80);
    expectValidPlan(plan, [{ start: 2, end: 75 }], 80);
    expect(plan.map((c) => [c.start, c.end])).toEqual([
      [1.8, 26.333],
      [26.333, 50.667],
      [50.667, 75.2],
    ]);
    expect(plan.map((c) => c.speech)).toEqual([
      [{ start: 2, end: 26.333 }],
      [{ start: 26.333, end: 50.667 }],
      [{ start: 50.667, end: 75 }],
    ]);
    // Just over the limit with its padding: two halves.
    const two = planSpeechChunks([{ start: 10, end: 39.7 }], 60);
    expect(two.map((c) => [c.start, c.end])).toEqual([
      [9.8, 24.85],
      [24.85, 39.9],
    ]);
  });

  it("joins a chunk with under 1 s of speech to a neighbour when that fits", () => {
    // The 1.5 s pause is the better cut, which would leave "yes" (0.5 s) alone: it joins the next phrase.
    const spans = [
      { start: 0, end: 20 },
      { start: 21.5, end: 22 },
      { start: 22.3, end: 50 },
    ];
    const plan = planSpeechChunks(spans, 50);
    expectValidPlan(plan, spans, 50);
    expect(plan.map((c) => [c.start, c.end, c.speech.length])).toEqual([
      [0, 20.2, 1],
      [21.3, 50, 2],
    ]);
    for (const c of plan) expect(talk(c)).toBeGreaterThanOrEqual(1);
  });

  it("keeps a tiny chunk alone when joining would exceed the target or cross a long silence", () => {
    const tooLong = planSpeechChunks(
      [
        { start: 0, end: 29.5 },
        { start: 29.8, end: 30.2 },
      ],
      40,
    );
    expect(tooLong.map((c) => [c.start, c.end])).toEqual([
      [0, 29.65],
      [29.65, 30.4],
    ]);
    const isolated = planSpeechChunks(
      [
        { start: 0, end: 10 },
        { start: 20, end: 20.4 },
      ],
      30,
    );
    expect(isolated.map((c) => [c.start, c.end])).toEqual([
      [0, 10.2],
      [19.8, 20.6],
    ]);
  });

  it("never exceeds the target and covers every span (random recordings)", () => {
    // The checker itself catches broken plans.
    const spans = [
      { start: 0, end: 10 },
      { start: 15, end: 20 },
    ];
    expect(planProblems([{ start: 0, end: 31, speech: [{ start: 0, end: 31 }] }], spans, 31)).toHaveLength(2);
    expect(planProblems([{ start: 0, end: 10, speech: [{ start: 0, end: 10 }] }], spans, 20)).toHaveLength(1);
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 200; round++) {
      const spans: SpeechSpan[] = [];
      let t = rand() * 3;
      const n = 1 + Math.floor(rand() * 60);
      for (let i = 0; i < n; i++) {
        const speak = rand() < 0.1 ? 20 + rand() * 60 : 0.1 + rand() * 8;
        const start = Math.round(t * 1000) / 1000;
        const end = Math.round((t + speak) * 1000) / 1000;
        spans.push({ start, end });
        t = end + (rand() < 0.15 ? 2 + rand() * 30 : 0.05 + rand() * 1.5);
      }
      const duration = Math.round((t + rand() * 2) * 1000) / 1000;
      const target = [30, 30, 15, 8][round % 4];
      const pad = [0.2, 0, 0.5, 0.2][round % 4];
      const plan = planSpeechChunks(spans, duration, { target, pad });
      expectValidPlan(plan, spans, duration, target, 2, pad);
    }
  });

  it("refuses a target that leaves no room for speech", () => {
    expect(() => planSpeechChunks([{ start: 0, end: 1 }], 2, { target: 0.4, pad: 0.2 })).toThrow(RangeError);
  });
});
