// The text-run use case (services/gateway/src/usecases/text-run.ts) against in-memory fakes: the
// quota is reserved first and given back whatever way a run ends without a result, exactly once.
import { AppError, type TextJob } from "@kikitori/shared";
import { TextJobTimeout, type TextRunPorts, type TextRunRequest, TextRunService } from "../src/usecases/text-run.ts";

const UID = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22";
const RUN = "4e6f8a0b-1c2d-4e3f-9a5b-6c7d8e9f0a33";

type Outcome = { result: unknown } | { error: Error; code: string } | { timeout: true; thenResult?: unknown };

/** Postgres, S3 and BullMQ as maps and arrays; `outcome` is what the worker does with the job. */
function world(limit = 5) {
  const s = {
    used: 0,
    runs: new Map<string, { status: string; result: unknown; errorCode: string | null; durationMs?: number }>(),
    inputs: new Map<string, string>(),
    queued: [] as TextJob[],
    removed: [] as string[],
    errors: [] as unknown[],
    outcome: { result: { summary: "short" } } as Outcome,
    failCreate: false,
    failSave: false,
    failEnqueue: false,
  };
  const ports: TextRunPorts = {
    quota: {
      reserve: async () => {
        if (s.used >= limit) return false;
        s.used++;
        return true;
      },
      release: async () => {
        s.used = Math.max(0, s.used - 1);
      },
    },
    runs: {
      create: async (run) => {
        if (s.failCreate) throw new Error("db down");
        s.runs.set(run.id, { status: "running", result: null, errorCode: null });
      },
      fail: async (runId, status, errorCode, durationMs) => {
        const run = s.runs.get(runId);
        if (run?.status !== "running") return false;
        s.runs.set(runId, { status, result: null, errorCode, durationMs });
        s.used--;
        return true;
      },
      find: async (runId) => s.runs.get(runId) ?? null,
    },
    saveInput: async (key, body) => {
      if (s.failSave) throw new Error("s3 down");
      s.inputs.set(key, body.toString("utf8"));
    },
    enqueue: async (job) => {
      if (s.failEnqueue) throw new Error("redis down");
      s.queued.push(job);
      return {
        result: async () => {
          const o = s.outcome;
          if ("result" in o) {
            s.runs.set(job.runId, { status: "succeeded", result: o.result, errorCode: null });
            return o.result;
          }
          if ("error" in o) {
            // The worker ends the run itself when it fails for good.
            const run = s.runs.get(job.runId);
            if (run?.status === "running") {
              s.runs.set(job.runId, { status: "failed", result: null, errorCode: o.code });
              s.used--;
            }
            throw o.error;
          }
          if (o.thenResult) s.runs.set(job.runId, { status: "succeeded", result: o.thenResult, errorCode: null });
          throw new TextJobTimeout("Job wait summary timed out before finishing");
        },
        remove: async () => {
          s.removed.push(job.runId);
        },
      };
    },
    planLink: (language) => `https://kikitori.test/${language ?? "en"}/plan`,
    contactUrl: "https://kikitori.test/contact",
    timeoutMs: 4000,
    newId: () => RUN,
  };
  return { s, service: new TextRunService(ports) };
}

const request = (over: Partial<TextRunRequest> = {}): TextRunRequest => ({
  userId: UID,
  kind: "summary",
  input: { text: "A long text.", requiredPhrases: ["a", "b"], desiredLength: 100 },
  inputChars: 12,
  language: "en",
  correlationId: "req-1",
  log: { error: (...a: unknown[]) => void a } as never,
  ...over,
});

it("reserves, records, stores the input, queues the run and returns the worker's result", async () => {
  const { s, service } = world();
  await expect(service.run(request())).resolves.toEqual({ summary: "short" });
  expect(s.used).toBe(1);
  expect(s.runs.get(RUN)?.status).toBe("succeeded");
  const key = `users/${UID}/text/${RUN}.json`;
  expect(JSON.parse(s.inputs.get(key) ?? "null")).toEqual(request().input);
  expect(s.queued).toEqual([{ runId: RUN, userId: UID, kind: "summary", inputKey: key, correlationId: "req-1" }]);
});

it("refuses a run when the month's count is used up, creating nothing", async () => {
  const { s, service } = world(0);
  const err = await service.run(request({ kind: "titles", language: "ja" })).catch((e) => e);
  expect(err).toMatchObject({
    code: "QUOTA_EXCEEDED",
    message: expect.stringContaining("title and heading generations are used up"),
    link: "https://kikitori.test/ja/plan",
  });
  expect({ runs: s.runs.size, queued: s.queued.length }).toEqual({ runs: 0, queued: 0 });
});

it("gives the reservation back when the run cannot be recorded", async () => {
  const { s, service } = world();
  s.failCreate = true;
  await expect(service.run(request())).rejects.toThrow("db down");
  expect(s.used).toBe(0);
});

it("ends the run as SERVICE_UNAVAILABLE when its input cannot be stored or it cannot be queued", async () => {
  const { s, service } = world();
  s.failSave = true;
  const err = await service.run(request()).catch((e) => e);
  expect(err).toBeInstanceOf(AppError);
  expect(err.code).toBe("SERVICE_UNAVAILABLE");
  expect(s.runs.get(RUN)).toMatchObject({ status: "failed", errorCode: "SERVICE_UNAVAILABLE" });
  expect({ used: s.used, queued: s.queued.length }).toEqual({ used: 0, queued: 0 });

  s.failSave = false;
  s.failEnqueue = true;
  s.runs.clear();
  expect((await service.run(request()).catch((e) => e)).code).toBe("SERVICE_UNAVAILABLE");
  expect(s.runs.get(RUN)).toMatchObject({ status: "failed", errorCode: "SERVICE_UNAVAILABLE" });
  expect(s.used).toBe(0);
});

it("stops waiting at the time-out: the run ends timed_out, the job leaves the queue, the count goes back", async () => {
  const { s, service } = world();
  s.outcome = { timeout: true };
  const err = await service.run(request()).catch((e) => e);
  expect(err).toMatchObject({ code: "GENERATION_TIMEOUT", link: "https://kikitori.test/contact" });
  expect(s.runs.get(RUN)).toMatchObject({ status: "timed_out", errorCode: "GENERATION_TIMEOUT", durationMs: 4000 });
  expect(s.removed).toEqual([RUN]);
  expect(s.used).toBe(0);
});

it("answers with a result stored just as the wait ran out", async () => {
  const { s, service } = world();
  s.outcome = { timeout: true, thenResult: { summary: "just in time" } };
  // The run is no longer running when the time-out lands: nothing is given back, the result stands.
  await expect(service.run(request())).resolves.toEqual({ summary: "just in time" });
  expect(s.used).toBe(1);
  expect(s.removed).toEqual([]);
});

it("maps a failed run to the worker's code when it is one of ours, else GENERATION_FAILED", async () => {
  const { s, service } = world();
  s.outcome = { error: new Error("engine unreachable"), code: "SERVICE_UNAVAILABLE" };
  const unavailable = await service.run(request()).catch((e) => e);
  expect(unavailable).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "engine unreachable" });
  expect(unavailable.link).toBeUndefined();

  s.runs.clear();
  s.outcome = { error: new Error("boom"), code: "INTERNAL" };
  const failed = await service.run(request({ kind: "titles" })).catch((e) => e);
  expect(failed).toMatchObject({
    code: "GENERATION_FAILED",
    message: "Failed to generate titles and headings.",
    link: "https://kikitori.test/contact",
  });
  expect(s.used).toBe(0);
});
