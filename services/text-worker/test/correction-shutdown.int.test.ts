// Scale-down of the text worker with the `openai` engine: a worker process gets SIGTERM while
// a long job is in the middle of its sections. The section in hand finishes (its request is not
// cut), the finished sections stay stored, the job goes back to the queue (not failed, not stalled,
// no attempt used) while the gateway keeps showing it in progress, the process exits 0 within its
// grace period, and a second worker finishes the job without asking the model for a finished
// section again. When the grace period runs out before the section in hand, that one section is
// given up and the job goes back all the same.

import { jest } from "@jest/globals";
import { QUEUES } from "@kikitori/shared";
import { createQueue, createRedis } from "@kikitori/shared/server";
import { deletePrefix, exitWithin, type ServiceProcess } from "../../../tests/infra/service-process.ts";
import { insertJob } from "../../../tests/support/db.ts";
import { api, startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { type StandinRequest, startOpenAiStandin } from "../../../tests/support/openai-standin.ts";
import { createUser, startWorker } from "../../../tests/support/pipeline.ts";

jest.setTimeout(120_000);

/** About 3,000 characters of plain sentences: seven or so sections of at most 500 characters. */
const TRANSCRIPT = Array.from(
  { length: 40 },
  (_, i) => `Sentence number ${i + 1} is about the harbour, the boats and the weather this morning.`,
).join(" ");

/** The transcript section a request asks to correct. */
function sectionOf(req: StandinRequest): string {
  const body = JSON.parse(req.body.toString()) as { messages: Array<{ role: string; content: string }> };
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  return /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(user)?.[1] ?? "";
}

/** The stand-in's corrected text of a section: recognisable, and within the engine's length checks. */
const corrected = (section: string) => `Q: ${section.trim()}`;

function chatAnswer(text: string) {
  return {
    json: {
      id: "chatcmpl-standin",
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: "standin",
      choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify({ text }) }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function logLines(svc: ServiceProcess): Array<Record<string, any>> {
  return (svc.stdout?.() ?? svc.output())
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
}

let t: TestGateway;
const running: ServiceProcess[] = [];
beforeAll(async () => {
  t = await startTestGateway();
}, 60_000);
afterAll(async () => {
  for (const svc of running)
    if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill("SIGKILL");
  const redis = createRedis(t.env.REDIS_URL, "client");
  await deletePrefix(redis, t.prefix);
  redis.disconnect();
  await t?.close();
});

/** A user, a transcribed job waiting for correction, and its correction job in the queue. */
async function queuedCorrection() {
  const user = await createUser(t);
  const jobId = await insertJob(t.db, user.uid, {
    status: "correcting",
    transcription: TRANSCRIPT,
    transcriptionTime: 1,
    transcriptionProgress: 100,
    transcriptionStartedAt: new Date(),
    transcriptionDoneAt: new Date(),
    correlationId: `shutdown-${user.uid}`,
  });
  const redis = createRedis(t.env.REDIS_URL, "producer");
  const queue = createQueue(QUEUES.correction, redis, t.prefix);
  await queue.add("correct", { jobId, userId: user.uid, correlationId: `shutdown-${user.uid}` }, { jobId });
  return {
    user,
    jobId,
    queue,
    close: async () => {
      await queue.close();
      await redis.quit();
    },
  };
}

function workerEnv(standinUrl: string, shutdownMs: number): Record<string, string> {
  return {
    LOG_LEVEL: "info",
    CORRECTION_ENGINE: "openai",
    OPENAI_BASE_URL: standinUrl,
    OPENAI_API_KEY: "sk-standin",
    CORRECTION_MODEL: "standin",
    CORRECTION_SECTION_CHARS: "500",
    WORKER_CONCURRENCY: "1",
    SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
  };
}

/** A first worker on the queued job, sent SIGTERM once the second section is asked for; it exits 0 within `graceMs`. */
async function stopWhileSecondSectionAsked(standin: { url: string; requests: StandinRequest[] }, graceMs: number) {
  const first = await startWorker(t, "text-worker", workerEnv(standin.url, graceMs));
  running.push(first);
  await until("the second section's request", () => (standin.requests.length >= 2 ? true : undefined));
  first.child.kill("SIGTERM");
  expect(await exitWithin(first, graceMs)).toBe(0);
  return first;
}

/** A second worker started on the handed-back job; the job row once it has completed or failed. */
async function finishWithSecondWorker(standinUrl: string, graceMs: number, jobId: string) {
  const second = await startWorker(t, "text-worker", workerEnv(standinUrl, graceMs));
  running.push(second);
  const done = await until("the job to complete", async () => {
    const row = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
    return row.status === "completed" || row.status === "failed" ? row : undefined;
  });
  return { second, done };
}

it("SIGTERM mid-job: the section in hand finishes, the job goes back to the queue, and another worker finishes it without redoing a section", async () => {
  // Every section takes a while to answer, so the job is long enough to be caught in the middle.
  const standin = await startOpenAiStandin(async (req) => {
    await sleep(800);
    return chatAnswer(corrected(sectionOf(req)));
  });
  const q = await queuedCorrection();
  const GRACE_MS = 20_000;
  try {
    // The second section is being asked for: the first is stored, the second is in flight.
    const first = await stopWhileSecondSectionAsked(standin, GRACE_MS);

    const firstLog = logLines(first);
    const stopAt = firstLog.findIndex((l) => l.msg === "shutting down");
    expect(stopAt).toBeGreaterThanOrEqual(0);
    expect(firstLog.some((l) => l.msg === "job failed")).toBe(false);
    expect(firstLog.some((l) => l.msg === "shutdown time nearly used up: cancelling the jobs still running")).toBe(
      false,
    );
    const paused = firstLog.find((l) => l.msg?.startsWith("correction paused between sections"));
    expect(paused).toMatchObject({ jobId: q.jobId, cutShort: false });
    expect(firstLog.some((l) => l.msg === "job handed back to the queue" && l.jobId === q.jobId)).toBe(true);

    // No section was cut: every request the first worker sent became a stored section.
    const askedByFirst = standin.requests.length;
    const stored = await t.db.correctionSection.findMany({ where: { jobId: q.jobId }, orderBy: { index: "asc" } });
    expect(askedByFirst).toBeGreaterThanOrEqual(2);
    expect(stored.map((s) => s.index)).toEqual([...Array(askedByFirst).keys()]);
    expect(stored.map((s) => s.text)).toEqual(standin.requests.map((r) => corrected(sectionOf(r))));
    const total = paused?.sections as number;
    expect(askedByFirst).toBeLessThan(total);

    // Back in the queue, waiting: not failed, not stalled, no attempt used.
    const parked = await q.queue.getJob(q.jobId);
    expect(await parked?.getState()).toBe("waiting");
    expect(parked).toMatchObject({ attemptsMade: 0, stalledCounter: 0 });
    expect(parked?.failedReason).toBeFalsy();

    // The gateway still shows the job in progress, at the progress of the stored sections.
    const snap = await api(t.url, "GET", `/api/transcriptions/${q.jobId}`, { token: q.user.token });
    expect(snap.status).toBe(200);
    expect(snap.body).toMatchObject({ status: "correcting", rewrittenText: null });
    expect(snap.body.correctionProgress).toBe(Math.floor((99 * askedByFirst) / total));

    // A second worker takes the job up from the stored sections.
    const { second, done } = await finishWithSecondWorker(standin.url, GRACE_MS, q.jobId);
    expect(done.status).toBe("completed");
    // Each section asked for exactly once over both workers, and the text is every answer in order.
    const sections = standin.requests.map(sectionOf);
    expect(sections).toHaveLength(total);
    expect(new Set(sections).size).toBe(total);
    expect(sections.join("")).toBe(TRANSCRIPT);
    expect(done.rewrittenText).toBe(sections.map(corrected).join("\n\n"));
    expect(await t.db.correctionSection.count({ where: { jobId: q.jobId } })).toBe(total);

    const finished = await q.queue.getJob(q.jobId);
    expect(await finished?.getState()).toBe("completed");
    expect(finished?.stalledCounter).toBe(0);
    const secondLog = logLines(second);
    expect(secondLog.some((l) => l.msg === "job failed")).toBe(false);
    expect(secondLog.filter((l) => l.msg === "correction complete" && l.jobId === q.jobId)).toHaveLength(1);
    // Correction itself charges nothing: the hand-back adds no usage either.
    expect(await t.db.usageEvent.count({ where: { userId: q.user.uid } })).toBe(0);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: q.user.uid } })).secondsUsed).toBe(0);
    second.child.kill("SIGTERM");
    expect(await exitWithin(second, GRACE_MS)).toBe(0);
  } finally {
    await q.close();
    await standin.close();
  }
});

it("a section still unanswered when the grace period is nearly up is given up, and the job goes back all the same", async () => {
  // The second section's first request never gets an answer in time; every other answer is quick.
  let held = false;
  const standin = await startOpenAiStandin(async (req, n) => {
    if (n === 2 && !held) {
      held = true;
      await sleep(60_000);
    }
    return chatAnswer(corrected(sectionOf(req)));
  });
  const q = await queuedCorrection();
  const GRACE_MS = 5_000;
  try {
    const first = await stopWhileSecondSectionAsked(standin, GRACE_MS);
    const firstLog = logLines(first);
    expect(firstLog.some((l) => l.msg === "job failed")).toBe(false);
    expect(firstLog.find((l) => l.msg?.startsWith("shutdown time used up"))).toMatchObject({
      jobId: q.jobId,
      sectionsStored: 1,
      cutShort: true,
    });
    const parked = await q.queue.getJob(q.jobId);
    expect(await parked?.getState()).toBe("waiting");
    expect(parked).toMatchObject({ attemptsMade: 0, stalledCounter: 0 });
    expect(await t.db.correctionSection.count({ where: { jobId: q.jobId } })).toBe(1);

    const { second, done } = await finishWithSecondWorker(standin.url, 20_000, q.jobId);
    expect(done.status).toBe("completed");
    // Only the given-up section was asked for twice; the stored one was not redone.
    const sections = standin.requests.map(sectionOf);
    const counts = new Map<string, number>();
    for (const s of sections) counts.set(s, (counts.get(s) ?? 0) + 1);
    expect([...counts.values()].filter((c) => c > 1)).toEqual([2]);
    expect(counts.get(sections[1])).toBe(2);
    expect(counts.get(sections[0])).toBe(1);
    expect(done.rewrittenText).toBe([...counts.keys()].map(corrected).join("\n\n"));
    second.child.kill("SIGTERM");
    expect(await exitWithin(second, 20_000)).toBe(0);
  } finally {
    await q.close();
    await standin.close();
  }
});
