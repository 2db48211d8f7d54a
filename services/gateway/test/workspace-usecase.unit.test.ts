// The workspace use cases (services/gateway/src/workspace/usecases.ts) on an in-memory repository:
// edits based on a version (409 when the job moved on), the texts editable once the job is complete,
// a line split that the interview text follows, restores of kept versions, and the writes per job.
import type { AppError } from "@kikitori/shared";
import { jobRow, newTestWorkspaceService } from "../../../tests/support/use-cases.ts";

const UID = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22";
const segments = [
  { start: 0, end: 2, text: "Hello there.", speaker: 0 },
  { start: 2, end: 5, text: "Good morning to you.", speaker: 1 },
];

/** The use case with one completed job of UID, with two timed lines and an interview text. */
function world(over: Parameters<typeof jobRow>[0] = {}, opts: Parameters<typeof newTestWorkspaceService>[0] = {}) {
  const t = newTestWorkspaceService(opts);
  const job = jobRow({
    userId: UID,
    segments,
    transcription: "Hello there. Good morning to you.",
    speakers: [
      { id: 0, name: "Ann" },
      { id: 1, name: "Bo" },
    ],
    ...over,
  });
  t.state.jobs.set(job.id, job);
  return { ...t, job };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: AppError) => e.code,
  );

it("edits the title and texts as the next version, keeping the original first", async () => {
  const { service, state, job } = world();
  const saved = await service.edit(await service.job(UID, job.id), {
    version: 1,
    title: "Morning",
    rewrittenText: "A: Hi.",
  });
  expect(saved).toMatchObject({ version: 2, title: "Morning", rewrittenText: "A: Hi." });
  expect(state.versions.get(job.id)?.map((v) => [v.version, v.kind])).toEqual([
    [1, "original"],
    [2, "edit"],
  ]);
  const versions = await service.versions(saved);
  expect(versions.map((v) => [v.version, v.current])).toEqual([
    [2, true],
    [1, false],
  ]);
});

it("answers 409 VERSION_CONFLICT with the current version to an edit based on an older one", async () => {
  const { service, job } = world();
  const first = await service.edit(job, { version: 1, title: "One" });
  const err = (await service.edit(first, { version: 1, title: "Two" }).catch((e) => e)) as AppError;
  expect(err).toMatchObject({ code: "VERSION_CONFLICT", details: { version: 2 } });
  // A stale row (another tab saved meanwhile): the repository's compare-and-set refuses it.
  expect(await codeOf(service.edit(job, { version: 1, title: "Three" }))).toBe("VERSION_CONFLICT");
});

it("edits only the title of a job still running; its texts once it is complete", async () => {
  const { service, job } = world({ status: "correcting" });
  expect(await codeOf(service.edit(job, { version: 1, rewrittenText: "x" }))).toBe("JOB_NOT_READY");
  await expect(service.edit(job, { version: 1, title: "Later" })).resolves.toMatchObject({ version: 2 });
});

it("changes a line's text and speaker, and queues the interview text to follow it", async () => {
  const { service, queued, job } = world();
  const saved = await service.edit(job, { version: 1, segments: [{ index: 1, text: "Good evening.", speaker: 0 }] });
  expect(saved.transcription).toContain("Good evening.");
  expect((saved.segments as typeof segments)[1]).toMatchObject({ text: "Good evening.", speaker: 0 });
  expect(queued).toEqual([
    {
      name: "sync-interview",
      data: { jobId: job.id, userId: UID },
      opts: { jobId: `sync-${job.id}-2`, delay: 300 },
    },
  ]);
});

it("splits a line in two at a character offset; the second part may go to another speaker", async () => {
  const { service, job } = world();
  const saved = await service.split(job, 1, { version: 1, at: 5, speaker: 0 });
  const lines = saved.segments as typeof segments;
  expect(lines.map((l) => [l.text, l.speaker])).toEqual([
    ["Hello there.", 0],
    ["Good", 1],
    ["morning to you.", 0],
  ]);
  expect(await codeOf(service.split(saved, 7, { version: 2, at: 1 }))).toBe("VALIDATION_FAILED");
});

it("restores a kept version as the newest, keeping the job's title", async () => {
  const { service, state, job } = world();
  const edited = await service.edit(job, { version: 1, title: "Named", rewrittenText: "A: changed" });
  const restored = await service.restore(edited, 1, 2);
  expect(restored).toMatchObject({ version: 3, title: "Named", rewrittenText: "A: Hello there." });
  expect(state.versions.get(job.id)?.at(-1)).toMatchObject({ version: 3, kind: "restore", restoredFrom: 1 });
  expect(await codeOf(service.restore(restored, 9, 3))).toBe("NOT_FOUND");
  await expect(service.version(restored, 2)).resolves.toMatchObject({ version: 2, rewrittenText: "A: changed" });
});

it("limits the writes per job: past the limit, 429 with the seconds to wait", async () => {
  const { service, job } = world({}, { writesPerJobPerMinute: 2 });
  let current = await service.edit(job, { version: 1, title: "a" });
  current = await service.edit(current, { version: 2, title: "b" });
  const err = (await service.edit(current, { version: 3, title: "c" }).catch((e) => e)) as AppError;
  expect(err).toMatchObject({ code: "RATE_LIMITED", details: { retryAfterSeconds: 42 } });
});

it("answers 404 for another user's job and 409 for the fidelity view of a job without a transcript", async () => {
  const { service, job } = world({ status: "transcribing", transcription: null });
  expect(await codeOf(service.job("7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", job.id))).toBe("NOT_FOUND");
  expect(await codeOf(service.fidelity(job))).toBe("JOB_NOT_READY");
});
