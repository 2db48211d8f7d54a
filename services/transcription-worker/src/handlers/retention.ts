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

/**
 * How long an accepted recording may take to reach the store before its job fails: far past the
 * gateway's own retries (10 minutes), so only a gateway gone with its disk leaves one this long.
 */
export const AUDIO_PENDING_LIMIT_MS = 30 * 60_000;

/** Jobs whose recording never reached the store (their gateway and its disk are gone) fail, holding no minutes. */
export async function failUnstoredAudio(
  deps: { db: Db; store: ObjectStore; logger: Logger },
  now = new Date(),
): Promise<number> {
  let failed = 0;
  for (const job of await jobLifecycle.audioPendingSince(deps.db, new Date(now.getTime() - AUDIO_PENDING_LIMIT_MS))) {
    if (!(await jobLifecycle.audioNotStored(deps.db, job.id, now))) continue;
    // A PUT cut short by the gateway's end may have left part of it.
    await deps.store.remove(job.audioKey).catch(() => undefined);
    deps.logger.warn({ jobId: job.id }, "recording never reached the store: job failed");
    failed++;
  }
  return failed;
}

/** The retention schedule's run: expired audio, recordings that never reached the store, then resumable uploads abandoned for a day. */
export async function sweepRetention(
  deps: { db: Db; store: ObjectStore; logger: Logger },
  now = new Date(),
): Promise<{ deleted: number; unstored: number; uploadsRemoved: number }> {
  const deleted = await sweepExpiredAudio(deps, now);
  const unstored = await failUnstoredAudio(deps, now);
  return { deleted, unstored, uploadsRemoved: await sweepAbandonedUploads(deps, now) };
}
