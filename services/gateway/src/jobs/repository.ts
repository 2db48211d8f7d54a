// The gateway's reads of jobs and their pieces, in one place below the use cases (writes go through
// the job lifecycle module in shared, services/shared/src/server/job-lifecycle.ts). The free functions
// serve the other features' use cases (quotes, shares, uploads); jobRepository binds the jobs
// feature's JobRepository (usecases.ts) to them.
import { AppError, isUuid, type PlanName, type PlanQuota, type TranscriptSegment } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  chargeTranscription,
  type JobRow,
  jobLifecycle,
  transcriptionChargeKey,
  withReservedSeconds,
} from "@kikitori/shared/server";
import { searchJobs } from "./search.ts";
import type { JobRepository } from "./usecases.ts";

export type { JobRow };

/** The user's own job, or 404 NOT_FOUND (also for an id that is not a UUID, so nothing leaks). */
export async function ownJob(db: Db, uid: string, jobId: string, message = "No such transcription"): Promise<JobRow> {
  const job = isUuid(jobId) ? await db.transcriptionJob.findFirst({ where: { id: jobId, userId: uid } }) : null;
  if (!job) throw new AppError("NOT_FOUND", message);
  return job;
}

/** Jobs by id, in the order of `ids` (ids no longer there are left out). */
export async function jobsInOrder(db: Db, ids: string[]): Promise<JobRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.transcriptionJob.findMany({ where: { id: { in: ids } } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const job = byId.get(id);
    return job ? [job] : [];
  });
}

/** A job's chunks: where each lies in the recording, its object, and when its live text went out. */
export function jobChunks(db: Db, jobId: string) {
  return db.transcriptChunk.findMany({
    where: { jobId },
    orderBy: { index: "asc" },
    select: { objectKey: true, startSeconds: true, endSeconds: true, publishedAt: true },
  });
}

/** The segments of a running job whose live text went out already, in order. */
export async function liveSegments(db: Db, jobId: string): Promise<TranscriptSegment[]> {
  const chunks = await db.transcriptChunk.findMany({
    where: { jobId, publishedAt: { not: null } },
    orderBy: { index: "asc" },
    select: { segments: true },
  });
  return chunks.flatMap((c) => (Array.isArray(c.segments) ? (c.segments as TranscriptSegment[]) : []));
}

/** Whether the job's transcription has been charged (its usage event exists). */
export async function transcriptionCharged(db: Db, jobId: string): Promise<boolean> {
  return (await db.usageEvent.count({ where: { idempotencyKey: transcriptionChargeKey(jobId) } })) > 0;
}

/** The user's row (plan, counters, period) for the usage record; 404 USER_NOT_FOUND when gone. */
export async function usageRow(db: Db, uid: string) {
  const user = await db.user.findUnique({ where: { id: uid } });
  if (!user) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
  return user;
}

/** The jobs feature's repository on Postgres; `quotas` bound the minutes a retry holds. */
export function jobRepository(db: Db, quotas: Record<PlanName, PlanQuota>): JobRepository {
  return {
    ownJob: (uid, jobId, message) => ownJob(db, uid, jobId, message),
    jobsInOrder: (ids) => jobsInOrder(db, ids),
    search: (opts) => searchJobs(db, opts),
    liveSegments: (jobId) => liveSegments(db, jobId),
    chunks: (jobId) => jobChunks(db, jobId),
    transcriptionCharged: (jobId) => transcriptionCharged(db, jobId),
    chargeTranscription: (uid, jobId, seconds) => chargeTranscription(db, uid, jobId, seconds),
    holdForRetry: (uid, jobId, seconds) =>
      withReservedSeconds(db, uid, seconds, quotas, (tx) => jobLifecycle.holdForRetry(tx, jobId, seconds)),
    retry: (jobId, atCorrection) => jobLifecycle.retry(db, jobId, atCorrection),
    releaseQuota: (jobId) => jobLifecycle.releaseQuota(db, jobId),
    remove: (jobId) => jobLifecycle.remove(db, jobId),
    usageRow: (uid) => usageRow(db, uid),
  };
}
