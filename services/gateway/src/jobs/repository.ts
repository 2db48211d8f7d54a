// The gateway's reads of jobs and their pieces, in one place below the routes (writes go through the
// job lifecycle module in shared). Routes ask these, never the database directly.
import { AppError, isUuid, type TranscriptSegment } from "@kikitori/shared";
import type { Db, Prisma } from "@kikitori/shared/db";
import { transcriptionChargeKey } from "@kikitori/shared/server";

export type JobRow = Prisma.TranscriptionJobGetPayload<Record<string, never>>;

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
