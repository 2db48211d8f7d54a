// A job handed back to its queue during a shutdown is not a failure: the worker layer lets
// BullMQ's WaitingError through untouched, says so in the log, and hands handlers their shutdown
// signals.
import { Writable } from "node:stream";
import { QUEUES } from "@kikitori/shared";
import type { Job } from "bullmq";
import { cancelAfterMs } from "../src/server/lifecycle.ts";
import { createLogger } from "../src/server/logger.ts";
import { handBackJob, instrumentProcessor, type JobControl, jobProcessor } from "../src/server/workers.ts";

const userId = "00000000-0000-4000-8000-000000000001";
const jobId = "00000000-0000-4000-8000-000000000002";
const fakeJob = (name: string, data: unknown) => ({ id: "1", name, data, attemptsMade: 0, opts: {} }) as unknown as Job;

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, logger: createLogger("test-worker", "info", stream) };
}

describe("handBackJob", () => {
  it("moves the job back to wait with the lock token, then throws BullMQ's WaitingError", async () => {
    const tokens: Array<string | undefined> = [];
    const job = {
      moveToWait: async (token?: string) => {
        tokens.push(token);
        return 0;
      },
    };
    const err = await handBackJob(job, "lock-token").catch((e) => e);
    expect(tokens).toEqual(["lock-token"]);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("WaitingError");
  });

  it("without a lock token it moves nothing and fails as a passing fault", async () => {
    let moved = 0;
    const err = await handBackJob(
      {
        moveToWait: async () => {
          moved++;
          return 0;
        },
      },
      undefined,
    ).catch((e) => e);
    expect(moved).toBe(0);
    expect(err).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryable: true });
  });
});

describe("instrumentProcessor", () => {
  it("lets a hand-back through as it is: logged as handed back, not as failed, not timed as a failure", async () => {
    const out = capture();
    const observed: Array<Record<string, string>> = [];
    const processor = instrumentProcessor(
      "correction",
      async (_job: Job, token?: string) => handBackJob({ moveToWait: async () => 0 }, token),
      {
        logger: out.logger,
        metrics: { jobDuration: { observe: (labels: Record<string, string>) => observed.push(labels) } as never },
      },
    );
    const err = await processor(fakeJob("correct", { jobId, userId }), "t").catch((e) => e);
    await new Promise((r) => setImmediate(r));
    expect(err.name).toBe("WaitingError");
    expect(out.lines.map((l) => l.msg)).toEqual(["job handed back to the queue"]);
    expect(observed).toEqual([]);
  });
});

describe("jobProcessor", () => {
  it("hands the handler its shutdown signals", async () => {
    const stopping = new AbortController();
    const control: JobControl = { stopping: stopping.signal, signal: new AbortController().signal };
    let seen: JobControl | undefined;
    const process = jobProcessor(QUEUES.correction, {
      correct: async (_job, _token, c) => {
        seen = c;
      },
      "sync-interview": async () => undefined,
    });
    await process(fakeJob("correct", { jobId, userId }), "token", control);
    expect(seen).toBe(control);
    stopping.abort();
    expect(seen?.stopping.aborted).toBe(true);
  });
});

describe("cancelAfterMs", () => {
  it("keeps a fifth of the shutdown time, at most 10 s, for handing jobs back and closing", () => {
    expect(cancelAfterMs(150_000)).toBe(140_000);
    expect(cancelAfterMs(20_000)).toBe(16_000);
    expect(cancelAfterMs(5_000)).toBe(4_000);
    expect(cancelAfterMs(0)).toBe(0);
  });
});
