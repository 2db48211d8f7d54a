// The jobs use cases (services/gateway/src/jobs/usecases.ts) on in-memory repositories: who may read
// a job, the delete that charges live text already delivered and removes the objects, the retry from
// the transcription or the correction, and the usage record.
import type { AppError } from "@kikitori/shared";
import { jobRow, newTestJobService } from "../../../tests/support/use-cases.ts";

const UID = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22";
const OTHER = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

/** The use case with one job of UID in its repository. */
function world(over: Parameters<typeof jobRow>[0] = {}) {
  const t = newTestJobService();
  const job = jobRow({ userId: UID, ...over });
  t.state.jobs.set(job.id, job);
  return { ...t, job };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: AppError) => e.code,
  );

it("reads the owner's job and answers 404 to anyone else, also for the audio", async () => {
  const { service, job } = world({ title: "Talk" });
  await expect(service.snapshot(UID, job.id)).resolves.toMatchObject({ jobId: job.id, title: "Talk" });
  expect(await codeOf(service.snapshot(OTHER, job.id))).toBe("NOT_FOUND");
  await expect(service.audio(OTHER, job.id)).rejects.toMatchObject({ code: "NOT_FOUND", message: "No such recording" });
  await expect(service.audio(UID, job.id)).resolves.toEqual({ key: job.audioKey, mime: "audio/wav", bytes: 32_000 });
});

it("answers 410 for audio past its retention or deleted by the sweep", async () => {
  const { service, state, job } = world({ audioExpiresAt: new Date("2020-01-01T00:00:00Z") });
  expect(await codeOf(service.audio(UID, job.id))).toBe("AUDIO_EXPIRED");
  state.jobs.set(job.id, { ...job, audioExpiresAt: new Date("2999-01-01"), audioDeletedAt: new Date() });
  expect(await codeOf(service.audio(UID, job.id))).toBe("AUDIO_EXPIRED");
});

it("gives a job still transcribing the live segments already sent, and a finished one its own", async () => {
  const live = [{ start: 0, end: 2, text: "Hi", speaker: 0 }];
  const { service, state, job } = world({ status: "transcribing", segments: null, transcription: null });
  state.chunks.set(job.id, [
    { objectKey: "c0", startSeconds: 0, endSeconds: 30, publishedAt: new Date(), segments: live },
    { objectKey: "c1", startSeconds: 30, endSeconds: 60, publishedAt: null, segments: [{ text: "not yet" }] },
  ]);
  expect((await service.snapshot(UID, job.id)).segments).toEqual(live);
  const own = [{ start: 0, end: 1, text: "Done", speaker: 0 }];
  state.jobs.set(job.id, { ...job, status: "completed", segments: own });
  expect((await service.snapshot(UID, job.id)).segments).toEqual(own);
});

it("lists a page of the user's jobs, as snapshots or as library items with the passage found", async () => {
  const { service, state } = world({ transcription: "We spoke of the harbour at dawn.", rewrittenText: null });
  state.jobs.set("x", jobRow({ id: "x", userId: OTHER, transcription: "harbour" }));
  const full = await service.list(UID, { limit: 20, page: 1, view: "full" });
  expect(full.total).toBe(1);
  expect(full.jobs[0]).toHaveProperty("transcription");
  const library = await service.list(UID, { limit: 20, page: 1, q: "harbour", view: "library" });
  expect(library.jobs).toHaveLength(1);
  expect(library.jobs[0]).not.toHaveProperty("transcription");
  expect((library.jobs[0] as { snippet: string | null }).snippet).toContain("harbour");
});

it("deletes a job: the row, then its audio and chunk objects; live text delivered before is charged once", async () => {
  const { service, state, objects, job, log, logged } = world({ status: "transcribing", durationSeconds: 100 });
  state.chunks.set(job.id, [
    { objectKey: "c0", startSeconds: 0, endSeconds: 30, publishedAt: new Date() },
    { objectKey: "c1", startSeconds: 30, endSeconds: 60.2, publishedAt: new Date() },
    { objectKey: "c2", startSeconds: 60.2, endSeconds: 100, publishedAt: null },
  ]);
  objects.failing.add("c1");
  await service.remove(UID, job.id, log);
  expect(state.jobs.has(job.id)).toBe(false);
  expect(state.charged.get(job.id)).toBe(61);
  expect(objects.removed).toEqual([job.audioKey, "c0", "c2"]);
  expect(logged).toEqual([
    "live text delivered before the delete charged",
    "some objects could not be removed",
    "transcription deleted",
  ]);
  expect(await codeOf(service.remove(UID, job.id, log))).toBe("NOT_FOUND");
});

it("deletes a job charged already without charging it again, and refuses another user's", async () => {
  const { service, state, job, log } = world();
  state.chunks.set(job.id, [{ objectKey: "c0", startSeconds: 0, endSeconds: 30, publishedAt: new Date() }]);
  state.charged.set(job.id, 90);
  expect(await codeOf(service.remove(OTHER, job.id, log))).toBe("NOT_FOUND");
  expect(state.jobs.has(job.id)).toBe(true);
  await service.remove(UID, job.id, log);
  expect(state.charged.get(job.id)).toBe(90);
});

it("retries a job failed in transcription: holds its minutes again and queues the transcription", async () => {
  const { service, state, queued, job, log } = world({
    status: "failed",
    transcription: null,
    transcriptionTime: null,
    durationSeconds: 90,
    errorCode: "TRANSCRIPTION_FAILED",
  });
  state.secondsLeft.set(UID, 600);
  const snapshot = await service.retry(UID, job.id, log);
  expect(snapshot).toMatchObject({ status: "queued", error: null });
  expect(state.jobs.get(job.id)?.reservedSeconds).toBe(90);
  expect(queued).toEqual([
    {
      queue: "transcription",
      name: "transcribe",
      data: { jobId: job.id, userId: UID, audioKey: job.audioKey, correlationId: job.correlationId },
      opts: { jobId: `${job.id}-retry` },
    },
  ]);
});

it("retries a job failed in correction at the correction, without holding minutes", async () => {
  const { service, state, queued, job, log } = world({ status: "failed", rewrittenText: null });
  const snapshot = await service.retry(UID, job.id, log);
  expect(snapshot.status).toBe("correcting");
  expect(state.jobs.get(job.id)?.reservedSeconds).toBe(0);
  expect(queued.map((q) => [q.queue, q.name])).toEqual([["correction", "correct"]]);
});

it("refuses a retry of a job not failed, without minutes left, or with its audio gone", async () => {
  const notFailed = world({ status: "completed" });
  expect(await codeOf(notFailed.service.retry(UID, notFailed.job.id, notFailed.log))).toBe("JOB_NOT_READY");

  const broke = world({ status: "failed", transcription: null, transcriptionTime: null });
  broke.state.secondsLeft.set(UID, 10);
  expect(await codeOf(broke.service.retry(UID, broke.job.id, broke.log))).toBe("QUOTA_EXCEEDED");
  expect(broke.state.jobs.get(broke.job.id)?.status).toBe("failed");

  const expired = world({ status: "failed", transcription: null, audioExpiresAt: new Date("2020-01-01") });
  expect(await codeOf(expired.service.retry(UID, expired.job.id, expired.log))).toBe("AUDIO_EXPIRED");
  expect(broke.queued.length + expired.queued.length + notFailed.queued.length).toBe(0);
});

it("retries a job charged already without holding minutes it no longer needs", async () => {
  const { service, state, job, log } = world({ status: "failed", transcription: null, transcriptionTime: null });
  state.charged.set(job.id, 90);
  await expect(service.retry(UID, job.id, log)).resolves.toMatchObject({ status: "queued" });
  expect(state.jobs.get(job.id)?.reservedSeconds).toBe(0);
});

it("gives back the held minutes when the job moved on between the hold and the retry", async () => {
  const { service, state, repo, queued, job, log } = world({
    status: "failed",
    transcription: null,
    transcriptionTime: null,
  });
  state.secondsLeft.set(UID, 600);
  // A retry from another tab moves the job after the minutes were held: this one's transition is refused.
  const retry = repo.retry;
  repo.retry = async (jobId, atCorrection) => {
    state.jobs.set(jobId, { ...state.jobs.get(jobId)!, status: "queued" });
    return retry(jobId, atCorrection);
  };
  expect(await codeOf(service.retry(UID, job.id, log))).toBe("JOB_NOT_READY");
  expect(state.jobs.get(job.id)?.reservedSeconds).toBe(0);
  expect(queued).toEqual([]);
});

it("gives the usage record of the user's row at the service's clock, 404 USER_NOT_FOUND when gone", async () => {
  const { service, state, clock } = world();
  state.usage.set(UID, {
    plan: "free",
    pendingPlan: null,
    pendingPlanAt: null,
    periodStart: new Date("2026-03-01T00:00:00Z"),
    resetDate: new Date("2026-04-01T00:00:00Z"),
    anchorDay: 1,
    secondsUsed: 600,
    summariesUsed: 2,
    titleRunsUsed: 0,
  });
  await expect(service.usage(UID)).resolves.toMatchObject({ totalMinutesUsed: 10, summarizeUsage: 2 });
  // Past the reset date (before the billing sweep wrote it down): a new period with nothing used.
  clock.now = new Date("2026-04-02T00:00:00Z");
  await expect(service.usage(UID)).resolves.toMatchObject({ totalMinutesUsed: 0, summarizeUsage: 0 });
  expect(await codeOf(service.usage(OTHER))).toBe("USER_NOT_FOUND");
});
