import type { Db } from "@kikitori/shared/db";
import { jobLifecycle, type Logger, type ObjectStore, sweepAbandonedUploads } from "@kikitori/shared/server";

/**
 * Deletes uploaded audio (and any leftover chunk files) of jobs past their retention date and marks
 * them, so GET /api/audio answers 410 and the player shows the expired notice. Idempotent.
 */
export async function sweepExpiredAudio(
  deps: { db: Db; store: ObjectStore; logger: Logger },
  now = new Date(),
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const due = await deps.db.transcriptionJob.findMany({
      where: { audioExpiresAt: { lte: now }, audioDeletedAt: null },
      select: { id: true, userId: true, audioKey: true },
      take: 200,
    });
    if (due.length === 0) break;
    for (const j of due) {
      await deps.store.remove(j.audioKey).catch((err) => deps.logger.warn({ err, jobId: j.id }, "audio already gone"));
      await deps.store.removePrefix(`users/${j.userId}/jobs/${j.id}/`);
      await jobLifecycle.audioDeleted(deps.db, { jobId: j.id }, now);
      deleted++;
    }
  }
  if (deleted) deps.logger.info({ deleted }, "expired audio deleted");
  return deleted;
}

/** The retention schedule's run: expired audio, then resumable uploads abandoned for a day. */
export async function sweepRetention(
  deps: { db: Db; store: ObjectStore; logger: Logger },
  now = new Date(),
): Promise<{ deleted: number; uploadsRemoved: number }> {
  const deleted = await sweepExpiredAudio(deps, now);
  return { deleted, uploadsRemoved: await sweepAbandonedUploads(deps, now) };
}
