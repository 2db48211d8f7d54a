import { UnrecoverableError } from "bullmq";
import type { z } from "zod";
import { AppError, type ErrorCode, isAppError } from "../errors.ts";
import type { ProgressEnvelope } from "../progress.ts";
import type { Db } from "./db.ts";
import { type JobState, jobLifecycle } from "./job-lifecycle.ts";

/**
 * An AppError that must not be retried, in the form BullMQ recognises (`UnrecoverableError`): the
 * job fails at once whatever attempts are left. Keeps the AppError's code for logs and progress events.
 */
export class UnrecoverableJobError extends UnrecoverableError {
  readonly code: ErrorCode;
  readonly appError: AppError;
  constructor(appError: AppError) {
    super(appError.message);
    this.name = "UnrecoverableError";
    this.code = appError.code;
    this.appError = appError;
  }
}

/**
 * What a processor's error becomes for BullMQ: a non-retryable AppError turns into an
 * UnrecoverableJobError; everything else (passing faults, retryable AppErrors) is thrown as is, so
 * BullMQ retries it with the queue's backoff.
 */
export function toJobError(err: unknown): unknown {
  if (err instanceof UnrecoverableJobError) return err;
  if (isAppError(err) && !err.retryable) return new UnrecoverableJobError(err);
  return err;
}

/** The `{code, message}` a failed job reports to its user (never internals of a non-AppError). */
export function jobFailure(err: unknown): { code: ErrorCode; message: string } {
  if (err instanceof UnrecoverableJobError) return { code: err.code, message: err.message };
  if (isAppError(err)) return { code: err.code, message: err.message };
  return { code: "INTERNAL", message: "Processing failed" };
}

/** Validates a job payload; a payload that does not fit is bad input, so the job must not be retried. */
export function parseJobPayload<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const r = schema.safeParse(data);
  if (!r.success) {
    throw new UnrecoverableJobError(
      new AppError("VALIDATION_FAILED", "invalid job payload", {
        retryable: false,
        details: r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
      }),
    );
  }
  return r.data;
}

/**
 * A transcription job that failed for good at `stage`: marked failed (only while it is still in one
 * of the `from` states, so it is reported once and a finished job stays finished; a transcript
 * already made is kept) and its owner is told. An unexpected error becomes the stage's own code.
 */
export async function markJobFailed(
  deps: { db: Db; publish: (envelope: ProgressEnvelope) => Promise<unknown> },
  ids: { jobId: string; userId: string; correlationId?: string },
  err: unknown,
  stage: {
    name: "transcription" | "correction";
    internalCode: ErrorCode;
    from: JobState[];
  },
): Promise<void> {
  const error = jobFailure(err);
  const code = error.code === "INTERNAL" ? stage.internalCode : error.code;
  const moved = await jobLifecycle.failed(deps.db, ids.jobId, stage.from, {
    code,
    message: error.message,
    stage: stage.name,
  });
  if (!moved) return;
  await deps.publish({
    userId: ids.userId,
    correlationId: ids.correlationId,
    event: { jobId: ids.jobId, status: "Failed", error: { code, message: error.message } },
  });
}
