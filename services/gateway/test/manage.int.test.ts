// Deleting a job (audio, pieces and texts gone from the store and the database) and retrying a failed
// one without uploading again.
import { randomUUID } from "node:crypto";
import { QUEUES } from "@kikitori/shared";
import { createObjectStore, createQueue, createRedis, type ObjectStore, type Redis } from "@kikitori/shared/server";
import { insertJob, insertVerifiedUser } from "../../../tests/support/db.ts";
import { startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { loadGatewayConfig } from "../src/config.ts";

let t: TestGateway;
let store: ObjectStore;
let redis: Redis;
beforeAll(async () => {
  t = await startTestGateway();
  store = createObjectStore(loadGatewayConfig(t.env));
  redis = createRedis(t.env.REDIS_URL, "producer");
});
afterAll(async () => {
  await redis?.quit();
  await t?.close();
});

async function userWithJob(over: Record<string, unknown> = {}, seconds = 0) {
  const { uid, email } = await insertVerifiedUser(t.db, { secondsUsed: seconds });
  const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
  const jobId = randomUUID();
  const audioKey = `users/${uid}/audio/${jobId}.mp3`;
  await store.put(audioKey, Buffer.from("ID3 audio"), 9, "audio/mpeg");
  await insertJob(t.db, uid, { id: jobId, audioKey, audioBytes: 9, durationSeconds: 120, ...over });
  return { uid, token, jobId, audioKey };
}

const call = (token: string, method: string, url: string) =>
  fetch(`${t.url}${url}`, { method, headers: { authorization: `Bearer ${token}` } });

it("deletes a job: its audio and chunk objects leave the store, its rows the database", async () => {
  const { uid, token, jobId, audioKey } = await userWithJob({
    status: "completed",
    transcription: "x",
    rewrittenText: "y",
  });
  const chunkKey = `users/${uid}/jobs/${jobId}/chunk-0.wav`;
  await store.put(chunkKey, Buffer.from("RIFF"), 4, "audio/wav");
  await t.db.transcriptChunk.create({
    data: { jobId, index: 0, startSeconds: 0, endSeconds: 30, objectKey: chunkKey },
  });
  await t.db.correctionSection.create({ data: { jobId, index: 0, text: "y" } });

  const other = await userWithJob();
  expect((await call(other.token, "DELETE", `/api/transcriptions/${jobId}`)).status).toBe(404);

  const r = await call(token, "DELETE", `/api/transcriptions/${jobId}`);
  expect(r.status).toBe(204);
  expect(await store.stat(audioKey)).toBeNull();
  expect(await store.stat(chunkKey)).toBeNull();
  expect(await t.db.transcriptionJob.count({ where: { id: jobId } })).toBe(0);
  expect(await t.db.transcriptChunk.count({ where: { jobId } })).toBe(0);
  expect(await t.db.correctionSection.count({ where: { jobId } })).toBe(0);
  expect((await call(token, "GET", `/api/transcriptions/${jobId}`)).status).toBe(404);
  expect((await call(token, "DELETE", `/api/transcriptions/${jobId}`)).status).toBe(404);
});

it("retries a failed transcription from where it stopped, and a failed correction at the correction", async () => {
  const q = createQueue(QUEUES.transcription, redis, t.prefix);
  const c = createQueue(QUEUES.correction, redis, t.prefix);
  try {
    const failed = await userWithJob({
      status: "failed",
      errorCode: "TRANSCRIPTION_FAILED",
      failedStage: "transcription",
    });
    const r = await call(failed.token, "POST", `/api/transcriptions/${failed.jobId}/retry`);
    expect(r.status).toBe(202);
    expect(await r.json()).toMatchObject({ status: "queued", error: null });
    const waiting = await q.getJobs(["waiting", "prioritized", "delayed"]);
    expect(waiting.map((j) => j.data.jobId)).toContain(failed.jobId);

    const atCorrection = await userWithJob({
      status: "failed",
      transcription: "text",
      transcriptionTime: 3,
      errorCode: "CORRECTION_FAILED",
      failedStage: "correction",
    });
    const r2 = await call(atCorrection.token, "POST", `/api/transcriptions/${atCorrection.jobId}/retry`);
    expect(r2.status).toBe(202);
    expect((await r2.json()).status).toBe("correcting");
    expect((await c.getJobs(["waiting"])).map((j) => j.data.jobId)).toContain(atCorrection.jobId);
  } finally {
    await q.close();
    await c.close();
  }
});

it("refuses to retry a job that did not fail, one whose audio is gone, and one the minutes no longer cover", async () => {
  const running = await userWithJob({ status: "transcribing" });
  const r = await call(running.token, "POST", `/api/transcriptions/${running.jobId}/retry`);
  expect(r.status).toBe(409);
  expect((await r.json()).error.code).toBe("JOB_NOT_READY");

  const expired = await userWithJob({ status: "failed", audioExpiresAt: new Date(Date.now() - 1000) });
  expect((await call(expired.token, "POST", `/api/transcriptions/${expired.jobId}/retry`)).status).toBe(410);

  // Free plan: 30 minutes a month; 29.5 used, the recording is 2 minutes and was never charged.
  const broke = await userWithJob({ status: "failed" }, 29.5 * 60);
  const b = await call(broke.token, "POST", `/api/transcriptions/${broke.jobId}/retry`);
  expect(b.status).toBe(402);
  expect((await b.json()).error.code).toBe("QUOTA_EXCEEDED");
  expect((await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: broke.jobId } })).status).toBe("failed");
});

it("a retried job holds its minutes again while it runs; a job that fails gives them back", async () => {
  // Free plan (30 min): 20 min used, the failed recording is 2 min and holds nothing while failed.
  const { uid, token, jobId } = await userWithJob({ status: "failed", failedStage: "transcription" }, 20 * 60);
  const usage = async () => (await (await call(token, "GET", "/api/user-usage")).json()) as Record<string, number>;
  expect((await call(token, "POST", `/api/transcriptions/${jobId}/retry`)).status).toBe(202);
  expect((await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).reservedSeconds).toBe(120);
  // A second in-flight job of 9 min no longer fits: 30 − 20 − 2 = 8 min left.
  const other = await insertJob(t.db, uid, { status: "failed", durationSeconds: 540, failedStage: "transcription" });
  const r = await call(token, "POST", `/api/transcriptions/${other}/retry`);
  expect([r.status, ((await r.json()) as { error: { code: string } }).error.code]).toEqual([402, "QUOTA_EXCEEDED"]);
  expect((await usage()).totalMinutesUsed).toBe(20);
});

it("deleting a job after its live text went out charges the seconds delivered, once", async () => {
  const { uid, token, jobId } = await userWithJob({ status: "transcribing", reservedSeconds: 120 });
  const chunk = (index: number, start: number, end: number, published: boolean) =>
    t.db.transcriptChunk.create({
      data: {
        jobId,
        index,
        startSeconds: start,
        endSeconds: end,
        objectKey: `users/${uid}/jobs/${jobId}/chunk-${index}.wav`,
        text: published ? "words" : null,
        doneAt: published ? new Date() : null,
        publishedAt: published ? new Date() : null,
      },
    });
  await chunk(0, 0, 28.2, true);
  await chunk(1, 30, 61.5, true);
  await chunk(2, 62, 120, false);
  expect((await call(token, "DELETE", `/api/transcriptions/${jobId}`)).status).toBe(204);
  const user = await t.db.user.findUniqueOrThrow({ where: { id: uid } });
  const events = await t.db.usageEvent.findMany({ where: { userId: uid } });
  // Chunks go out in order: the two sent cover the recording up to 61.5 s.
  expect(events.map((e) => [e.idempotencyKey, e.amount])).toEqual([[`transcription:${jobId}`, 62]]);
  expect(user.secondsUsed).toBe(62);

  // Nothing delivered: nothing charged.
  const quiet = await userWithJob({ status: "transcribing", reservedSeconds: 120 });
  expect((await call(quiet.token, "DELETE", `/api/transcriptions/${quiet.jobId}`)).status).toBe(204);
  expect(await t.db.usageEvent.count({ where: { userId: quiet.uid } })).toBe(0);
});

it("searches the user's jobs by name, transcript and interview text, in any script, a page at a time", async () => {
  const first = await userWithJob({ originalName: "Osaka interview.mp3", transcription: "We opened a bakery." });
  const { uid, token } = first;
  const add = (over: Record<string, unknown>) => insertJob(t.db, uid, { durationSeconds: 10, language: "ja", ...over });
  await add({ transcription: "大阪でパン屋を始めました。", rewrittenText: "田中：大阪でパン屋を始めました。" });
  await add({ rewrittenText: "Anna: The BAKERY was busy." });
  await add({ originalName: "unrelated.mp3" });
  const list = async (query: string) => {
    const r = await call(token, "GET", `/api/transcriptions?${query}`);
    expect(r.status).toBe(200);
    return r.json();
  };
  const bakery = await list("q=bakery");
  expect(bakery.total).toBe(2);
  expect(bakery.jobs).toHaveLength(2);
  const japanese = await list(`q=${encodeURIComponent("パン屋")}`);
  expect(japanese.jobs.map((j: { transcription: string }) => j.transcription)).toEqual(["大阪でパン屋を始めました。"]);
  expect((await list("q=osaka")).total).toBe(1);
  const page2 = await list("limit=3&page=2");
  expect(page2).toMatchObject({ total: 4, page: 2, pageSize: 3 });
  expect(page2.jobs).toHaveLength(1);
  // Another user's jobs never show.
  const other = await userWithJob({ transcription: "bakery" });
  expect((await (await call(other.token, "GET", "/api/transcriptions?q=bakery")).json()).total).toBe(1);
  expect((await call(token, "GET", "/api/transcriptions?page=0")).status).toBe(400);
});
