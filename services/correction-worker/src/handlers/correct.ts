import { AppError, type CorrectionJob, correctionJobSchema, type ProgressEnvelope } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  type JobLike,
  jobFailure,
  type Logger,
  type ObjectStore,
  parseJobPayload,
  UnrecoverableJobError,
} from "@kikitori/shared/server";

/** Everything the correction step touches, injected so tests can pass fakes. */
export interface CorrectionDeps {
  db: Db;
  store: ObjectStore;
  /** Publishes one progress update for the gateways to fan out (publishProgress bound to Redis). */
  publish: (envelope: ProgressEnvelope) => Promise<unknown>;
  logger: Logger;
}

export type CorrectionResult = { rewrittenText: string; correctionTime: number };

/**
 * Processes one job of QUEUES.correction: validate the payload, then (in a later issue) load the
 * transcription, rewrite it as an interview and store the result.
 */
export async function processCorrection(_deps: CorrectionDeps, job: JobLike<unknown>): Promise<CorrectionResult> {
  const payload: CorrectionJob = parseJobPayload(correctionJobSchema, job.data);
  throw new UnrecoverableJobError(
    new AppError("INTERNAL", "correction is not implemented yet", {
      retryable: false,
      details: { jobId: payload.jobId },
    }),
  );
}

export function createCorrectionProcessor(deps: CorrectionDeps): (job: JobLike<unknown>) => Promise<CorrectionResult> {
  return (job) => processCorrection(deps, job);
}

/** Tells the job's owner it failed for good (a "Failed" progress event). Bad payloads are only logged. */
export async function reportCorrectionFailure(
  deps: Pick<CorrectionDeps, "publish" | "logger">,
  job: JobLike<unknown>,
  err: unknown,
): Promise<void> {
  const parsed = correctionJobSchema.safeParse(job.data);
  if (!parsed.success) {
    deps.logger.warn({ jobId: job.id }, "failed job has no valid payload; nobody to notify");
    return;
  }
  const { jobId, userId, correlationId } = parsed.data;
  await deps.publish({ userId, correlationId, event: { jobId, status: "Failed", error: jobFailure(err) } });
}
