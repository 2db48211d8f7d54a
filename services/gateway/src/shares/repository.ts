// The share links' rows (transcript_shares), below the share use cases. The job a link shows is read
// with it; jobs themselves are written only by the job lifecycle module.
import type { Db } from "@kikitori/shared/db";

/** A link's columns as the use cases read them. */
export interface ShareRow {
  id: string;
  jobId: string;
  userId: string;
  includeAudio: boolean;
  expiresAt: Date;
  revokedAt: Date | null;
  lastOpenedAt: Date | null;
  createdAt: Date;
}

const live = (now: Date) => ({ revokedAt: null, expiresAt: { gt: now } });

/**
 * Adds a link unless the job already has `max` live ones: counted and inserted under a per-job
 * advisory lock, so parallel requests cannot pass the limit. Null when the limit is reached.
 */
export function insertShareWithin(
  db: Db,
  row: { id: string; jobId: string; userId: string; tokenHash: string; includeAudio: boolean; expiresAt: Date },
  max: number,
  now: Date,
): Promise<ShareRow | null> {
  return db.$transaction(async (tx) => {
    await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))::text AS "locked"`, `share:${row.jobId}`);
    const count = await tx.transcriptShare.count({ where: { jobId: row.jobId, ...live(now) } });
    if (count >= max) return null;
    return tx.transcriptShare.create({ data: { ...row, createdAt: now }, omit: { tokenHash: true } });
  });
}

/** The job's live links, newest first. */
export function liveShares(db: Db, jobId: string, now: Date): Promise<ShareRow[]> {
  return db.transcriptShare.findMany({
    where: { jobId, ...live(now) },
    orderBy: { createdAt: "desc" },
    omit: { tokenHash: true },
  });
}

/** Revokes a link of the job (a revoked one stays revoked); false when the job has no such link. */
export async function revokeShare(db: Db, jobId: string, shareId: string, now: Date): Promise<boolean> {
  const found = await db.transcriptShare.findFirst({ where: { id: shareId, jobId }, select: { revokedAt: true } });
  if (!found) return false;
  if (!found.revokedAt) {
    await db.transcriptShare.updateMany({ where: { id: shareId, revokedAt: null }, data: { revokedAt: now } });
  }
  return true;
}

/** The live link with this token hash and its job, or null (unknown, expired or revoked). */
export function liveShareByHash(db: Db, tokenHash: string, now: Date) {
  return db.transcriptShare.findFirst({
    where: { tokenHash, ...live(now) },
    omit: { tokenHash: true },
    include: { job: true },
  });
}

/** Notes that the link was opened (at most once a minute, so reading it stays a read). */
export async function markOpened(db: Db, shareId: string, now: Date): Promise<void> {
  await db.transcriptShare.updateMany({
    where: { id: shareId, OR: [{ lastOpenedAt: null }, { lastOpenedAt: { lt: new Date(now.getTime() - 60_000) } }] },
    data: { lastOpenedAt: now },
  });
}
