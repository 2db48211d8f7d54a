// The text-run use case (services/gateway/src/text/usecases.ts) on in-memory repositories: the
// quota is reserved first and given back whatever way a run ends without a result, exactly once.
import { AppError } from "@kikitori/shared";
import { newTestTextRunService } from "../../../tests/support/use-cases.ts";
import type { TextRunRequest } from "../src/text/usecases.ts";

const UID = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22";
const RUN = "4e6f8a0b-1c2d-4e3f-9a5b-6c7d8e9f0a33";

/** The use case on in-memory runs and queue; `used` is the month's summary count of the user. */
function world(limit = 5) {
  const t = newTestTextRunService({ limit, runId: RUN });
  return { ...t, used: () => t.runs.usedOf(UID, "summary") };
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
  const { runs, queue, service, used } = world();
  await expect(service.run(request())).resolves.toEqual({ summary: "short" });
  expect(used()).toBe(1);
  expect(runs.runs.get(RUN)?.status).toBe("succeeded");
  const key = `users/${UID}/text/${RUN}.json`;
  expect(JSON.parse(queue.inputs.get(key) ?? "null")).toEqual(request().input);
  expect(queue.queued).toEqual([{ runId: RUN, userId: UID, kind: "summary", inputKey: key, correlationId: "req-1" }]);
});

it("refuses a run when the month's count is used up, creating nothing", async () => {
  const { runs, queue, service } = world(0);
  const err = await service.run(request({ kind: "titles", language: "ja" })).catch((e) => e);
  expect(err).toMatchObject({
    code: "QUOTA_EXCEEDED",
    message: expect.stringContaining("title and heading generations are used up"),
    link: "https://kikitori.test/ja/plan",
  });
  expect({ runs: runs.runs.size, queued: queue.queued.length }).toEqual({ runs: 0, queued: 0 });
});

it("gives the reservation back when the run cannot be recorded", async () => {
  const { runs, service, used } = world();
  runs.failCreate = true;
  await expect(service.run(request())).rejects.toThrow("db down");
  expect(used()).toBe(0);
});

it("ends the run as SERVICE_UNAVAILABLE when its input cannot be stored or it cannot be queued", async () => {
  const { runs, queue, service, used } = world();
  queue.failSave = true;
  const err = await service.run(request()).catch((e) => e);
  expect(err).toBeInstanceOf(AppError);
  expect(err.code).toBe("SERVICE_UNAVAILABLE");
  expect(runs.runs.get(RUN)).toMatchObject({ status: "failed", errorCode: "SERVICE_UNAVAILABLE" });
  expect({ used: used(), queued: queue.queued.length }).toEqual({ used: 0, queued: 0 });

  queue.failSave = false;
  queue.failEnqueue = true;
  runs.runs.clear();
  expect((await service.run(request()).catch((e) => e)).code).toBe("SERVICE_UNAVAILABLE");
  expect(runs.runs.get(RUN)).toMatchObject({ status: "failed", errorCode: "SERVICE_UNAVAILABLE" });
  expect(used()).toBe(0);
});

it("stops waiting at the time-out: the run ends timed_out, the job leaves the queue, the count goes back", async () => {
  const { runs, queue, service, used } = world();
  queue.outcome = { timeout: true };
  const err = await service.run(request()).catch((e) => e);
  expect(err).toMatchObject({ code: "GENERATION_TIMEOUT", link: "https://kikitori.test/contact" });
  expect(runs.runs.get(RUN)).toMatchObject({ status: "timed_out", errorCode: "GENERATION_TIMEOUT", durationMs: 4000 });
  expect(queue.removed).toEqual([RUN]);
  expect(used()).toBe(0);
});

it("answers with a result stored just as the wait ran out", async () => {
  const { queue, service, used } = world();
  queue.outcome = { timeout: true, thenResult: { summary: "just in time" } };
  // The run is no longer running when the time-out lands: nothing is given back, the result stands.
  await expect(service.run(request())).resolves.toEqual({ summary: "just in time" });
  expect(used()).toBe(1);
  expect(queue.removed).toEqual([]);
});

it("maps a failed run to the worker's code when it is one of ours, else GENERATION_FAILED", async () => {
  const { runs, queue, service, used } = world();
  queue.outcome = { error: new Error("engine unreachable"), code: "SERVICE_UNAVAILABLE" };
  const unavailable = await service.run(request()).catch((e) => e);
  expect(unavailable).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "engine unreachable" });
  expect(unavailable.link).toBeUndefined();

  runs.runs.clear();
  queue.outcome = { error: new Error("boom"), code: "INTERNAL" };
  const failed = await service.run(request({ kind: "titles" })).catch((e) => e);
  expect(failed).toMatchObject({
    code: "GENERATION_FAILED",
    message: "Failed to generate titles and headings.",
    link: "https://kikitori.test/contact",
  });
  expect({ summaries: used(), titles: runs.usedOf(UID, "titles") }).toEqual({ summaries: 0, titles: 0 });
});
