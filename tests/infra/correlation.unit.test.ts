// The correlation id of a job reaches every log line written while the job runs, whichever logger the
// handler uses, exactly once per line; and the gateway side copies it into the socket message.
import { Writable } from "node:stream";
import { progressEnvelopeSchema, progressEventSchema } from "@kikitori/shared";
import { createLogger, instrumentProcessor, jobCorrelationId, withLogContext } from "@kikitori/shared/server";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      cb();
    },
  });
  return { lines, stream, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const job = (data: unknown) => ({ id: "j1", name: "chunk", data, attemptsMade: 0, opts: {} }) as never;

it("adds the job's correlation id to every line, also from the root logger and after awaits", async () => {
  const out = capture();
  const logger = createLogger("test-worker", "info", out.stream);
  const processor = instrumentProcessor(
    "transcription-chunk",
    async () => {
      logger.info("root logger, before any await");
      await new Promise((r) => setTimeout(r, 5));
      logger.child({ step: "engine" }).info("child logger, after a timer");
      logger.info({ correlationId: "cid-1", extra: 1 }, "names it itself");
      logger.child({ correlationId: "cid-1" }).warn("child that binds it");
      return 1;
    },
    { logger },
  );
  await processor(job({ jobId: "x", correlationId: "cid-1" }));
  logger.info("outside any job");
  await new Promise((r) => setImmediate(r));

  const lines = out.parsed();
  const inJob = lines.filter((l) => l.msg !== "outside any job");
  expect(inJob.map((l) => l.msg)).toEqual([
    "root logger, before any await",
    "child logger, after a timer",
    "names it itself",
    "child that binds it",
    "job completed",
  ]);
  for (const l of inJob) expect(l.correlationId).toBe("cid-1");
  // Never twice on one line (a JSON object with a duplicate key would be ambiguous).
  for (const raw of out.lines) expect(raw.match(/"correlationId"/g)?.length ?? 0).toBeLessThanOrEqual(1);
  expect(lines.find((l) => l.msg === "outside any job")).not.toHaveProperty("correlationId");
});

it("keeps concurrent jobs apart", async () => {
  const out = capture();
  const logger = createLogger("test-worker", "info", out.stream);
  const processor = instrumentProcessor(
    "correction",
    async (j: { data: { n: number } }) => {
      await new Promise((r) => setTimeout(r, 10 - j.data.n * 3));
      logger.info({ n: j.data.n }, "working");
      return j.data.n;
    },
    { logger },
  );
  await Promise.all([0, 1, 2].map((n) => processor(job({ n, correlationId: `c-${n}` }))));
  await new Promise((r) => setImmediate(r));
  for (const l of out.parsed().filter((x) => x.msg === "working")) expect(l.correlationId).toBe(`c-${l.n}`);
});

it("reads the id from the payload only when it is a non-empty string, and nests contexts", () => {
  expect(jobCorrelationId({ data: { correlationId: "a" } })).toBe("a");
  expect(jobCorrelationId({ data: { correlationId: "" } })).toBeUndefined();
  expect(jobCorrelationId({ data: { correlationId: 5 } })).toBeUndefined();
  expect(jobCorrelationId(undefined)).toBeUndefined();
  const out = capture();
  const logger = createLogger("t", "info", out.stream);
  withLogContext({ correlationId: "outer" }, () => {
    withLogContext({ correlationId: "inner" }, () => logger.info("in"));
    logger.info("out");
  });
  expect(out.parsed().map((l) => [l.msg, l.correlationId])).toEqual([
    ["in", "inner"],
    ["out", "outer"],
  ]);
});

it("lets the /ws progress message carry the correlation id (optional, older messages still valid)", () => {
  const event = { jobId: "j", status: "Transcription in progress", transcriptionProgress: 40 } as const;
  expect(progressEventSchema.parse({ ...event, correlationId: "c" })).toEqual({ ...event, correlationId: "c" });
  expect(progressEventSchema.parse(event)).toEqual(event);
  expect(progressEnvelopeSchema.parse({ userId: "u", correlationId: "c", event }).correlationId).toBe("c");
});
