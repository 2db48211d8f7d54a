import {
  AppError,
  type SummaryResult,
  summaryInputSchema,
  type TextJob,
  type TitlesResult,
  textJobSchema,
  titlesInputSchema,
} from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  completeTextRun,
  failTextRun,
  type JobLike,
  jobFailure,
  type Logger,
  type ObjectStore,
  parseJobPayload,
  TEXT_RUN_STATUS,
  toJobError,
  UnrecoverableJobError,
} from "@kikitori/shared/server";
import type { TextEngine } from "../text/port.ts";

/** Everything a text job touches, injected so tests can pass fakes or other engines. */
export interface TextDeps {
  db: Db;
  store: ObjectStore;
  engine: TextEngine;
  logger: Logger;
}

export type TextResult = SummaryResult | TitlesResult;

async function readJson(store: ObjectStore, key: string): Promise<unknown> {
  const stream = await store.get(key);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function unrecoverable(code: ConstructorParameters<typeof AppError>[0], message: string): UnrecoverableJobError {
  return new UnrecoverableJobError(new AppError(code, message, { retryable: false }));
}

/**
 * One job of QUEUES.text: loads the run's input from the object store, generates with the
 * configured engine, stores the result in text_runs and returns it (the gateway waits for it).
 * Idempotent: a run that already succeeded returns its stored result; a run the gateway gave up on
 * (timed out, quota given back) is not generated again.
 */
export async function processTextJob(deps: TextDeps, job: JobLike<unknown>): Promise<TextResult> {
  const payload: TextJob = parseJobPayload(textJobSchema, job.data);
  const run = await deps.db.textRun.findUnique({ where: { id: payload.runId } });
  if (!run || run.userId !== payload.userId || run.kind !== payload.kind) {
    throw unrecoverable("NOT_FOUND", "The text run does not exist");
  }
  if (run.status === TEXT_RUN_STATUS.succeeded && run.result) return run.result as unknown as TextResult;
  if (run.status !== TEXT_RUN_STATUS.running) {
    throw unrecoverable(
      run.status === TEXT_RUN_STATUS.timedOut ? "GENERATION_TIMEOUT" : "GENERATION_FAILED",
      "The run was ended before it could be generated",
    );
  }

  const started = Date.now();
  let result: TextResult;
  try {
    const raw = await readJson(deps.store, payload.inputKey).catch((err: unknown) => {
      throw new AppError("SERVICE_UNAVAILABLE", "The input of the run could not be read", { cause: err });
    });
    if (payload.kind === "summary") {
      const input = summaryInputSchema.parse(raw);
      result = { summary: await deps.engine.summarize(input) };
    } else {
      const input = titlesInputSchema.parse(raw);
      result = await deps.engine.titles(input);
    }
  } catch (err) {
    const jobErr = toJobError(err instanceof Error && err.name === "ZodError" ? invalidInput(err) : err);
    const final = jobErr instanceof UnrecoverableJobError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (final) {
      // Failed for good: end the run and give the reserved count back (only results are charged).
      const { code } = jobFailure(jobErr);
      await failTextRun(deps.db, payload.runId, "failed", code, Date.now() - started);
    }
    throw jobErr;
  }

  const durationMs = Date.now() - started;
  if (await completeTextRun(deps.db, payload.runId, result, deps.engine.name, durationMs)) return result;
  // Not running any more: a concurrent attempt stored it first, or the gateway stopped waiting.
  const again = await deps.db.textRun.findUnique({ where: { id: payload.runId } });
  if (again?.status === TEXT_RUN_STATUS.succeeded && again.result) return again.result as unknown as TextResult;
  throw unrecoverable("GENERATION_TIMEOUT", "The run was cancelled while it was being generated");
}

function invalidInput(err: Error): AppError {
  return new AppError("VALIDATION_FAILED", "The stored input of the run is not valid", {
    retryable: false,
    cause: err,
  });
}

export function createTextProcessor(deps: TextDeps): (job: JobLike<unknown>) => Promise<TextResult> {
  return (job) => processTextJob(deps, job);
}
