import { AppError, type ProgressEnvelope, type TranscriptionJob, transcriptionJobSchema } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  type JobLike,
  jobFailure,
  type Logger,
  type ObjectStore,
  parseJobPayload,
  UnrecoverableJobError,
} from "@kikitori/shared/server";

/** Everything the transcription pipeline touches, injected so tests can pass fakes. */
export interface TranscriptionDeps {
  db: Db;
  store: ObjectStore;
  /** Publishes one progress update for the gateways to fan out (publishProgress bound to Redis). */
  publish: (envelope: ProgressEnvelope) => Promise<unknown>;
  logger: Logger;
}

export type TranscriptionResult = { transcription: string; transcriptionTime: number };

/**
 * Processes one job of QUEUES.transcription: validate the payload, then (in a later issue) fetch the
 * audio from the object store, transcribe it, charge usage and hand over to correction.
 */
export async function processTranscription(
  _deps: TranscriptionDeps,
  job: JobLike<unknown>,
): Promise<TranscriptionResult> {
  const payload: TranscriptionJob = parseJobPayload(transcriptionJobSchema, job.data);
  throw new UnrecoverableJobError(
    new AppError("INTERNAL", "transcription is not implemented yet", {
      retryable: false,
      details: { jobId: payload.jobId },
    }),
  );
}

export function createTranscriptionProcessor(
  deps: TranscriptionDeps,
): (job: JobLike<unknown>) => Promise<TranscriptionResult> {
  return (job) => processTranscription(deps, job);
}

/** Tells the job's owner it failed for good (a "Failed" progress event). Bad payloads are only logged. */
export async function reportTranscriptionFailure(
  deps: Pick<TranscriptionDeps, "publish" | "logger">,
  job: JobLike<unknown>,
  err: unknown,
): Promise<void> {
  const parsed = transcriptionJobSchema.safeParse(job.data);
  if (!parsed.success) {
    deps.logger.warn({ jobId: job.id }, "failed job has no valid payload; nobody to notify");
    return;
  }
  const { jobId, userId, correlationId } = parsed.data;
  await deps.publish({ userId, correlationId, event: { jobId, status: "Failed", error: jobFailure(err) } });
}
