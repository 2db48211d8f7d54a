// The job registry (services/shared/src/jobs.ts) and its two ends: the producer that validates
// before anything reaches Redis (server/queues.ts) and the worker bootstrap that validates on receipt
// and refuses to start without a handler for every registered job (server/workers.ts). No Redis here:
// the producer gets a fake queue, the processor fake jobs.
import type { Job } from "bullmq";
import {
  DEFAULT_JOB_OPTIONS,
  JOB_REGISTRY,
  JobContractError,
  jobNamesOf,
  jobOptionsOf,
  parseJob,
  QUEUES,
  type QueueName,
} from "../src/jobs.ts";
import { createJobQueues, type ProducerQueue } from "../src/server/queues.ts";
import { assertHandlers, createJobWorkers, jobProcessor } from "../src/server/workers.ts";

const jobId = "7b0a3a8e-2a8f-4a59-9d5c-2f3e0d4f6a11";
const userId = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22";
const runId = "4e6f8a0b-1c2d-4e3f-9a5b-6c7d8e9f0a33";

describe("the registry", () => {
  it("keeps the queue and job names on the wire (Redis keys, KEDA triggers in k8s/)", () => {
    const names = Object.fromEntries(
      (Object.keys(JOB_REGISTRY) as QueueName[]).map((queue) => [queue, jobNamesOf(queue)]),
    );
    expect(names).toEqual({
      transcription: ["transcribe"],
      "transcription-chunk": ["chunk"],
      correction: ["correct", "sync-interview"],
      text: ["summary", "titles"],
      billing: ["daily-maintenance"],
      "audio-retention": ["audio-retention"],
    });
    expect(Object.keys(JOB_REGISTRY).sort()).toEqual(Object.values(QUEUES).sort());
  });

  it("validates a payload, dropping keys it does not know", () => {
    expect(parseJob(QUEUES.transcription, "transcribe", { jobId, userId, audioKey: "k", extra: 1 })).toEqual({
      jobId,
      userId,
      audioKey: "k",
    });
    expect(parseJob(QUEUES.audioRetention, "audio-retention", {})).toEqual({});
  });

  it("refuses a payload that does not fit, naming the queue, the job and the field", () => {
    let err: unknown;
    try {
      parseJob(QUEUES.correction, "correct", { jobId: "nope", userId });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JobContractError);
    expect((err as Error).message).toMatch(/job "correct" on queue "correction".*jobId/);
    expect((err as JobContractError).issues).toEqual([expect.objectContaining({ path: "jobId" })]);
  });

  it("refuses an unknown job name and an unknown queue", () => {
    expect(() => parseJob(QUEUES.text, "translate" as never, { runId })).toThrow(
      /unknown job "translate" on queue "text" \(known: summary, titles/,
    );
    expect(() => parseJob("emails" as QueueName, "send" as never, {})).toThrow(/unknown queue "emails"/);
  });

  it("gives each queue the default options, with the text queue's own retries", () => {
    expect(jobOptionsOf(QUEUES.correction)).toEqual(DEFAULT_JOB_OPTIONS);
    expect(jobOptionsOf(QUEUES.text)).toEqual({
      ...DEFAULT_JOB_OPTIONS,
      attempts: 2,
      backoff: { type: "fixed", delay: 1000 },
    });
  });
});

/** A queue that records what would have been sent to Redis. */
function fakeQueues() {
  const calls: Array<{ queue: QueueName; op: string; args: unknown[] }> = [];
  const closed: QueueName[] = [];
  const jobs = createJobQueues({
    connection: {} as never,
    prefix: "test",
    makeQueue: (queue): ProducerQueue =>
      ({
        add: async (...args: unknown[]) => {
          calls.push({ queue, op: "add", args });
          return { id: (args[2] as { jobId?: string } | undefined)?.jobId };
        },
        addBulk: async (...args: unknown[]) => {
          calls.push({ queue, op: "addBulk", args });
          return [];
        },
        upsertJobScheduler: async (...args: unknown[]) => {
          calls.push({ queue, op: "upsertJobScheduler", args });
        },
        close: async () => {
          closed.push(queue);
        },
      }) as unknown as ProducerQueue,
  });
  return { jobs, calls, closed };
}

describe("enqueue (producers)", () => {
  it("adds a valid job under its registry name, with the call's options", async () => {
    const { jobs, calls } = fakeQueues();
    await jobs.enqueue(QUEUES.transcription, "transcribe", { jobId, userId, audioKey: "users/x/a.wav" }, { jobId });
    expect(calls).toEqual([
      {
        queue: "transcription",
        op: "add",
        args: ["transcribe", { jobId, userId, audioKey: "users/x/a.wav" }, { jobId }],
      },
    ]);
  });

  it("validates before sending: a bad payload or an unknown job name never reaches the queue", async () => {
    const { jobs, calls } = fakeQueues();
    await expect(
      jobs.enqueue(QUEUES.text, "summary", { runId, userId, kind: "summary", inputKey: "" }),
    ).rejects.toBeInstanceOf(JobContractError);
    await expect(jobs.enqueue(QUEUES.correction, "rewrite" as "correct", { jobId, userId })).rejects.toThrow(
      /unknown job "rewrite" on queue "correction"/,
    );
    // One bad chunk keeps the whole bulk out.
    await expect(
      jobs.enqueueBulk(QUEUES.transcriptionChunk, "chunk", [
        { payload: { jobId, userId, index: 0 } },
        { payload: { jobId, userId, index: -1 } },
      ]),
    ).rejects.toBeInstanceOf(JobContractError);
    await expect(
      jobs.schedule(QUEUES.billing, "daily-maintenance", { id: "d", everyMs: 1000 }, {
        kind: "weekly",
      } as never),
    ).rejects.toBeInstanceOf(JobContractError);
    expect(calls).toEqual([]);
  });

  it("adds bulk children and upserts schedulers with the validated payloads", async () => {
    const { jobs, calls, closed } = fakeQueues();
    const parent = { id: jobId, queue: "test:transcription" };
    await jobs.enqueueBulk(
      QUEUES.transcriptionChunk,
      "chunk",
      [0, 1].map((index) => ({ payload: { jobId, userId, index }, opts: { jobId: `${jobId}-c${index}`, parent } })),
    );
    await jobs.schedule(
      QUEUES.billing,
      "daily-maintenance",
      { id: "daily", everyMs: 60_000 },
      { kind: "daily-maintenance" },
    );
    expect(calls).toEqual([
      {
        queue: "transcription-chunk",
        op: "addBulk",
        args: [
          [0, 1].map((index) => ({
            name: "chunk",
            data: { jobId, userId, index },
            opts: { jobId: `${jobId}-c${index}`, parent },
          })),
        ],
      },
      {
        queue: "billing",
        op: "upsertJobScheduler",
        args: ["daily", { every: 60_000 }, { name: "daily-maintenance", data: { kind: "daily-maintenance" } }],
      },
    ]);
    // One queue per name, shared; all closed together.
    expect(jobs.queue(QUEUES.billing)).toBe(jobs.queue(QUEUES.billing));
    await jobs.close();
    expect(closed.sort()).toEqual(["billing", "transcription-chunk"]);
  });
});

const fakeJob = (name: string, data: unknown) => ({ id: "1", name, data, attemptsMade: 0, opts: {} }) as unknown as Job;

describe("worker bootstrap", () => {
  it("hands the handler the job with its validated payload", async () => {
    const seen: unknown[] = [];
    const process = jobProcessor(QUEUES.correction, {
      correct: async (job) => {
        seen.push(job.data);
        return "done";
      },
      "sync-interview": async () => "done",
    });
    await expect(process(fakeJob("correct", { jobId, userId, stray: true }), "token")).resolves.toBe("done");
    expect(seen).toEqual([{ jobId, userId }]);
  });

  it("fails a job whose payload does not fit at once (unrecoverable VALIDATION_FAILED), without calling the handler", async () => {
    let called = 0;
    const process = jobProcessor(QUEUES.transcription, {
      transcribe: async () => {
        called++;
      },
    });
    await expect(process(fakeJob("transcribe", { jobId, userId }))).rejects.toMatchObject({
      name: "UnrecoverableError",
      code: "VALIDATION_FAILED",
    });
    expect(called).toBe(0);
  });

  it("fails a job whose name the registry does not list", async () => {
    const process = jobProcessor(QUEUES.billing, { "daily-maintenance": async () => undefined });
    await expect(process(fakeJob("hourly-maintenance", { kind: "daily-maintenance" }))).rejects.toMatchObject({
      name: "UnrecoverableError",
      code: "VALIDATION_FAILED",
      message: expect.stringContaining('unknown job "hourly-maintenance" on queue "billing"'),
    });
  });

  it("refuses to start without a handler for every registered job of its queue", () => {
    expect(() =>
      // @ts-expect-error: "titles" has no handler, which does not compile either
      jobProcessor(QUEUES.text, { summary: async () => ({}) }),
    ).toThrow('the worker for queue "text" cannot start: no handler for job(s) "titles"');
    expect(() => assertHandlers(QUEUES.correction, { correct: async () => 1, recorrect: async () => 1 })).toThrow(
      /handler\(s\) for job\(s\) the registry does not list: "recorrect"/,
    );
    expect(() => assertHandlers(QUEUES.correction, { correct: "not a function" })).toThrow(
      /no handler for job\(s\) "correct"/,
    );
  });

  it("checks every queue's handlers before any worker starts", () => {
    const logger = { error: () => undefined } as never;
    expect(() =>
      createJobWorkers(
        { connection: {} as never, prefix: "test", logger },
        {
          [QUEUES.correction]: {
            handlers: { correct: async () => 1, "sync-interview": async () => 1 },
            concurrency: 1,
            autorun: false,
          },
          // @ts-expect-error: the chunk queue's "chunk" handler is missing
          [QUEUES.transcriptionChunk]: { handlers: {}, concurrency: 1, autorun: false },
        },
      ),
    ).toThrow('the worker for queue "transcription-chunk" cannot start: no handler for job(s) "chunk"');
  });
});
