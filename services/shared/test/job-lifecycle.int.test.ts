// The job lifecycle module on a real database: each transition moves a job only from the states it
// names, so a stale worker (its job failed, retried or deleted meanwhile) cannot move it backwards.
import { randomUUID } from "node:crypto";
import type { Db } from "@kikitori/shared/db";
import { jobLifecycle } from "@kikitori/shared/server";
import { createTestDatabase, insertJob, insertVerifiedUser } from "../../../tests/support/db.ts";

let db: Db;
let drop: () => Promise<void>;
let uid: string;
beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  ({ uid } = await insertVerifiedUser(db));
});
afterAll(async () => drop?.());

const row = (id: string) => db.transcriptionJob.findUniqueOrThrow({ where: { id } });
const at = new Date("2026-11-25T12:00:00Z");

it("walks a job from queued to completed, each step once", async () => {
  const id = await insertJob(db, uid, { reservedSeconds: 60 });
  expect(await jobLifecycle.startTranscription(db, id, { startedAt: at, engine: "whisper:base", progress: 5 })).toBe(
    true,
  );
  expect(await jobLifecycle.startTranscription(db, id, { startedAt: at, engine: "other", progress: 5 })).toBe(false);
  expect(await jobLifecycle.planChunks(db, id, { chunkCount: 3, detectedLanguage: "en" })).toBe(true);
  expect(await jobLifecycle.raiseTranscriptionProgress(db, id, 40)).toBe(true);
  expect(await jobLifecycle.raiseTranscriptionProgress(db, id, 30)).toBe(false); // only rises
  const t = {
    transcription: "Hello.",
    segments: [{ start: 0, end: 1, text: "Hello." }],
    transcriptionTime: 2,
    doneAt: at,
  };
  expect(await jobLifecycle.transcribed(db, id, t)).toBe(true);
  expect(await jobLifecycle.transcribed(db, id, { ...t, transcription: "again" })).toBe(false);
  expect(await jobLifecycle.raiseTranscriptionProgress(db, id, 99)).toBe(false); // not transcribing any more
  expect(await jobLifecycle.startCorrection(db, id, { startedAt: at, engine: "offline" })).toBe(true);
  expect(await jobLifecycle.startCorrection(db, id, { startedAt: at, engine: "offline" })).toBe(false);
  expect(await jobLifecycle.correctionProgress(db, id, 50)).toBe(true);
  expect(await jobLifecycle.completed(db, id, { rewrittenText: "Q: Hello.", correctionTime: 1, doneAt: at })).toBe(
    true,
  );
  expect(await row(id)).toMatchObject({
    status: "completed",
    transcription: "Hello.",
    rewrittenText: "Q: Hello.",
    chunkCount: 3,
    transcriptionEngine: "whisper:base",
    correctionEngine: "offline",
    transcriptionProgress: 100,
    correctionProgress: 100,
  });
});

it("refuses stale transitions: a failed job is not moved on by a late worker, nor a completed one failed", async () => {
  const id = await insertJob(db, uid, { status: "transcribing", reservedSeconds: 90 });
  expect(
    await jobLifecycle.failed(db, id, ["queued", "transcribing"], {
      code: "TRANSCRIPTION_FAILED",
      message: "x",
      stage: "transcription",
    }),
  ).toBe(true);
  expect(await row(id)).toMatchObject({ status: "failed", reservedSeconds: 0, failedStage: "transcription" });
  // The worker that was still on it finishes late: nothing moves.
  const late = { transcription: "late", segments: [], transcriptionTime: 1, doneAt: at };
  expect(await jobLifecycle.transcribed(db, id, late)).toBe(false);
  expect(await jobLifecycle.raiseTranscriptionProgress(db, id, 80)).toBe(false);
  expect(await jobLifecycle.completed(db, id, { rewrittenText: "late", correctionTime: 1, doneAt: at })).toBe(false);
  expect(await row(id)).toMatchObject({ status: "failed", transcription: null, rewrittenText: null });

  const done = await insertJob(db, uid, { status: "completed", transcription: "t", rewrittenText: "r" });
  expect(
    await jobLifecycle.failed(db, done, ["correcting"], {
      code: "CORRECTION_FAILED",
      message: "x",
      stage: "correction",
    }),
  ).toBe(false);
  expect((await row(done)).status).toBe("completed");
});

it("retries only a failed job, holding its quota again first, and edits only on the version they were based on", async () => {
  const id = await insertJob(db, uid, { status: "failed", failedStage: "transcription", errorCode: "X" });
  expect(await jobLifecycle.holdForRetry(db, id, 120)).toBe(true);
  expect(await jobLifecycle.retry(db, id, false)).toBe(true);
  expect(await row(id)).toMatchObject({ status: "queued", errorCode: null, failedStage: null, reservedSeconds: 120 });
  expect(await jobLifecycle.retry(db, id, false)).toBe(false);
  expect(await jobLifecycle.holdForRetry(db, id, 120)).toBe(false);
  await jobLifecycle.releaseQuota(db, id);
  expect((await row(id)).reservedSeconds).toBe(0);

  const e = await insertJob(db, uid, { status: "completed", transcription: "a", rewrittenText: "b" });
  const edit = { title: "T", transcription: "a2", segments: [], rewrittenText: "b2", speakers: [], at };
  expect(await jobLifecycle.edit(db, e, 1, edit)).toBe(true);
  expect(await jobLifecycle.edit(db, e, 1, { ...edit, title: "stale" })).toBe(false);
  expect(await row(e)).toMatchObject({ version: 2, title: "T", transcription: "a2", editedAt: at });
});

it("marks audio deleted once, per job or for a user, and removes a job", async () => {
  const other = (await insertVerifiedUser(db)).uid;
  const a = await insertJob(db, other);
  const b = await insertJob(db, other);
  expect(await jobLifecycle.audioDeleted(db, { jobId: a }, at)).toBe(1);
  expect(await jobLifecycle.audioDeleted(db, { userId: other }, at)).toBe(1);
  expect((await row(b)).audioDeletedAt).toEqual(at);
  expect(await jobLifecycle.remove(db, a)).toBe(true);
  expect(await jobLifecycle.remove(db, a)).toBe(false);
  expect(await jobLifecycle.remove(db, randomUUID())).toBe(false);
});
