// The transcription's resumable steps on a real database: the chunk plan and each chunk's result are
// stored once, a re-run gets the stored one without running the step, and of two runs storing at
// once the first result stays.
import type { Db } from "@kikitori/shared/db";
import { runStep, runStepOnce } from "@kikitori/shared/server";
import { createTestDatabase, insertJob, insertVerifiedUser } from "../../../tests/support/db.ts";
import { CHUNK_PLAN_STEP, type ChunkPlan, type ChunkResult, chunkPlans, chunkResults } from "../src/handlers/steps.ts";

let db: Db;
let drop: () => Promise<void>;
let uid: string;
beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  ({ uid } = await insertVerifiedUser(db));
});
afterAll(async () => drop?.());

const planOf = (jobId: string, ends: number[], language = "en"): ChunkPlan => ({
  chunks: ends.map((end, index) => ({
    index,
    startSeconds: index === 0 ? 0 : ends[index - 1],
    endSeconds: end,
    objectKey: `users/u/jobs/${jobId}/chunk-${index}.wav`,
    speech: [{ start: index === 0 ? 0 : ends[index - 1], end }],
  })),
  detectedLanguage: language,
  diarized: null,
  notices: [],
});

describe("chunkPlans", () => {
  it("stores the plan once: the rows and the job's chunk count; a re-run gets it without planning", async () => {
    const jobId = await insertJob(db, uid, { status: "transcribing" });
    const store = chunkPlans(db, jobId);
    expect(await store.get(CHUNK_PLAN_STEP)).toBeUndefined();
    const plan = planOf(jobId, [10, 20, 25]);
    expect(await runStepOnce(store, CHUNK_PLAN_STEP, () => plan)).toEqual({ result: plan, ran: true });
    const job = await db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(job).toMatchObject({ chunkCount: 3, detectedLanguage: "en" });
    expect(await db.transcriptChunk.count({ where: { jobId } })).toBe(3);

    let planned = 0;
    const again = await runStepOnce(chunkPlans(db, jobId), CHUNK_PLAN_STEP, () => {
      planned++;
      return planOf(jobId, [5]);
    });
    expect(planned).toBe(0);
    expect(again).toEqual({ result: plan, ran: false });
  });

  it("of two runs that planned at once, the first plan stored stays and both get it", async () => {
    const jobId = await insertJob(db, uid, { status: "transcribing" });
    const first = planOf(jobId, [10, 20], "en");
    const second = planOf(jobId, [7, 14, 21], "de");
    // Both looked before either stored (two workers), so both planned.
    expect(await chunkPlans(db, jobId).get(CHUNK_PLAN_STEP)).toBeUndefined();
    expect(await chunkPlans(db, jobId).put(CHUNK_PLAN_STEP, first)).toEqual(first);
    expect(await chunkPlans(db, jobId).put(CHUNK_PLAN_STEP, second)).toEqual(first);
    expect(await db.transcriptChunk.count({ where: { jobId } })).toBe(2);
    expect(await db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).toMatchObject({
      chunkCount: 2,
      detectedLanguage: "en",
    });
  });

  it("replaces a plan left incomplete, keeping the chunks already transcribed", async () => {
    const jobId = await insertJob(db, uid, { status: "transcribing", chunkCount: 3 });
    const old = planOf(jobId, [10, 20, 30]).chunks;
    await db.transcriptChunk.createMany({
      data: [
        { jobId, ...old[0], text: "kept", doneAt: new Date() },
        { jobId, ...old[1] },
      ],
    });
    const store = chunkPlans(db, jobId);
    expect(await store.get(CHUNK_PLAN_STEP)).toBeUndefined();
    const plan = planOf(jobId, [10, 20, 30]);
    await runStep(store, CHUNK_PLAN_STEP, () => plan);
    const rows = await db.transcriptChunk.findMany({ where: { jobId }, orderBy: { index: "asc" } });
    expect(rows.map((r) => [r.index, r.text])).toEqual([
      [0, "kept"],
      [1, null],
      [2, null],
    ]);
    expect(await store.get(CHUNK_PLAN_STEP)).toEqual(plan);
  });

  it("keeps the speakers heard and the job's notices with the plan", async () => {
    const jobId = await insertJob(db, uid, { status: "transcribing" });
    const plan: ChunkPlan = {
      ...planOf(jobId, [12]),
      diarized: {
        spans: [
          { start: 0, end: 6, speaker: 0 },
          { start: 6, end: 12, speaker: 1 },
        ],
        engine: "classic",
      },
      notices: ["diarization_fallback", "speech_fallback"],
    };
    await runStep(chunkPlans(db, jobId), CHUNK_PLAN_STEP, () => plan);
    expect(await chunkPlans(db, jobId).get(CHUNK_PLAN_STEP)).toEqual(plan);
  });
});

describe("chunkResults", () => {
  const result = (text: string): ChunkResult => ({
    text,
    segments: [{ start: 0, end: 10, text }],
    engineSeconds: 1.5,
  });

  it("stores a chunk's result once; a re-run of the chunk gets it without the engine", async () => {
    const jobId = await insertJob(db, uid, { status: "transcribing" });
    await runStep(chunkPlans(db, jobId), CHUNK_PLAN_STEP, () => planOf(jobId, [10, 20]));
    const store = chunkResults(db, jobId);
    expect(await store.get(1)).toBeUndefined();
    expect(await runStepOnce(store, 1, () => result("hello there"))).toEqual({
      result: result("hello there"),
      ran: true,
    });
    const row = await db.transcriptChunk.findUniqueOrThrow({ where: { jobId_index: { jobId, index: 1 } } });
    expect(row.doneAt).not.toBeNull();
    expect(row.text).toBe("hello there");
    let transcribed = 0;
    const again = await runStepOnce(chunkResults(db, jobId), 1, () => {
      transcribed++;
      return result("other words");
    });
    expect(transcribed).toBe(0);
    expect(again).toEqual({ result: result("hello there"), ran: false });
    expect(await store.get(0)).toBeUndefined();
  });

  it("of two workers that transcribed one chunk at once, the first result stored stays", async () => {
    const jobId = await insertJob(db, uid, { status: "transcribing" });
    await runStep(chunkPlans(db, jobId), CHUNK_PLAN_STEP, () => planOf(jobId, [10]));
    expect(await chunkResults(db, jobId).put(0, result("first"))).toEqual(result("first"));
    expect(await chunkResults(db, jobId).put(0, result("second"))).toEqual(result("first"));
  });
});
