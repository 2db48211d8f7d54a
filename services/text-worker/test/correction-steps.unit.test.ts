import { memoryStepStore } from "@kikitori/shared/server";
import { OfflineCorrectionEngine } from "../src/correction/offline.ts";
import type { CorrectionInput } from "../src/correction/port.ts";
import { runResumableSteps, StoppedAtBoundary } from "../src/correction/steps.ts";
import { fixture } from "./fixtures/correction-transcripts.ts";

describe("runResumableSteps", () => {
  it("runs only the steps not stored, in order, each seeing the results before it", async () => {
    const ran: number[] = [];
    const kept: number[] = [];
    const saved: Array<[number, string, number, number]> = [];
    const out = await runResumableSteps(
      {
        count: 4,
        kept: (id) => kept.push(id),
        run: (id, before) => {
          ran.push(id);
          return `${id}<${before.join(",")}>`;
        },
      },
      {
        steps: memoryStepStore(new Map([[1, "stored"]])),
        onSection: (id, text, done, total) => {
          saved.push([id, text, done, total]);
        },
      },
    );
    expect(ran).toEqual([0, 2, 3]);
    expect(kept).toEqual([1]);
    expect(out).toEqual(["0<>", "stored", "2<0<>,stored>", "3<0<>,stored,2<0<>,stored>>"]);
    expect(saved.map(([id, , done, total]) => [id, done, total])).toEqual([
      [0, 1, 4],
      [2, 3, 4],
      [3, 4, 4],
    ]);
  });

  it("when asked to stop, finishes and stores the step in hand, then starts no other", async () => {
    const stop = new AbortController();
    const ran: number[] = [];
    const saved: number[] = [];
    const stored = new Map<number, string>();
    const run = runResumableSteps(
      {
        count: 5,
        run: async (id) => {
          ran.push(id);
          // The stop arrives while step 1 is running (e.g. SIGTERM during its request).
          if (id === 1) stop.abort();
          await new Promise((resolve) => setImmediate(resolve));
          return `s${id}`;
        },
      },
      { stop: stop.signal, steps: memoryStepStore(stored), onSection: (id) => void saved.push(id) },
    );
    const err = await run.catch((e) => e);
    expect(err).toBeInstanceOf(StoppedAtBoundary);
    expect(err).toMatchObject({ done: 2, total: 5 });
    expect(ran).toEqual([0, 1]);
    expect(saved).toEqual([0, 1]);
    expect([...stored]).toEqual([
      [0, "s0"],
      [1, "s1"],
    ]);
  });

  it("a job whose steps are all stored finishes even while stopping", async () => {
    const stop = new AbortController();
    stop.abort();
    const out = await runResumableSteps(
      {
        count: 2,
        run: () => {
          throw new Error("must not run");
        },
      },
      {
        stop: stop.signal,
        steps: memoryStepStore(
          new Map([
            [0, "a"],
            [1, "b"],
          ]),
        ),
      },
    );
    expect(out).toEqual(["a", "b"]);
  });

  it("the hard cancel stops before any step, stored or not", async () => {
    const cancel = new AbortController();
    cancel.abort(new Error("cancelled"));
    await expect(runResumableSteps({ count: 1, run: () => "x" }, { signal: cancel.signal })).rejects.toThrow(
      "cancelled",
    );
    // A reason that is not an Error (BullMQ cancels with a string) becomes a retryable AppError.
    const bullmq = new AbortController();
    bullmq.abort("the worker's shutdown time is used up");
    await expect(runResumableSteps({ count: 1, run: () => "x" }, { signal: bullmq.signal })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      retryable: true,
      message: expect.stringContaining("shutdown time is used up"),
    });
  });
});

describe("offline engine stopped at a section boundary", () => {
  const input = (transcript: string, over: Partial<CorrectionInput> = {}): CorrectionInput => ({
    transcript,
    language: "en",
    interviewer: "Sarah",
    interviewee: "Tom",
    tone: null,
    interviewExample: "",
    fileType: "meeting",
    ...over,
  });
  const engine = new OfflineCorrectionEngine({ sectionChars: 400 });

  it("resumed from what it stored, gives the same text as a run without a stop", async () => {
    const transcript = fixture("interview");
    const full = await engine.correct(input(transcript));
    expect(full.sections.length).toBeGreaterThan(3);
    const stop = new AbortController();
    const stored = new Map<number, string>();
    const err = await engine
      .correct(input(transcript), {
        stop: stop.signal,
        steps: memoryStepStore(stored),
        onSection: (index) => {
          if (index === 1) stop.abort();
        },
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(StoppedAtBoundary);
    expect([...stored.keys()]).toEqual([0, 1]);
    const redone: number[] = [];
    const resumed = await engine.correct(input(transcript), {
      steps: memoryStepStore(stored),
      onSection: (index) => void redone.push(index),
    });
    expect(redone[0]).toBe(2);
    expect(resumed.text).toBe(full.text);
  });
});
