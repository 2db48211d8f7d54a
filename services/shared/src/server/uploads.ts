import type { Db } from "./db.ts";
import type { Logger } from "./logger.ts";
import type { ObjectStore } from "./storage.ts";

/** A resumable upload with no PATCH for this long is abandoned: its row and parts are removed. */
export const UPLOAD_EXPIRY_MS = 24 * 60 * 60 * 1000;

/** Where a resumable upload's parts are stored (under the user's prefix: deleting the account removes them). */
export const uploadPartsPrefix = (userId: string, uploadId: string) => `users/${userId}/uploads/${uploadId}/`;

/**
 * Removes resumable uploads whose last PATCH is older than `expiryMs` (UPLOAD_EXPIRY_MS), with their
 * part objects: the abandoned ones, and the rows of finished ones (their parts went when they became
 * jobs). Run by the retention schedule; idempotent.
 */
export async function sweepAbandonedUploads(
  deps: { db: Db; store: ObjectStore; logger: Pick<Logger, "info" | "warn"> },
  now = new Date(),
  expiryMs = UPLOAD_EXPIRY_MS,
): Promise<number> {
  const before = new Date(now.getTime() - expiryMs);
  let removed = 0;
  for (;;) {
    const due = await deps.db.upload.findMany({
      where: { lastActivityAt: { lte: before } },
      select: { id: true, userId: true },
      take: 200,
    });
    if (due.length === 0) break;
    for (const u of due) {
      await deps.store.removePrefix(uploadPartsPrefix(u.userId, u.id));
      await deps.db.upload.deleteMany({ where: { id: u.id, lastActivityAt: { lte: before } } });
      removed++;
    }
  }
  if (removed) deps.logger.info({ removed }, "abandoned uploads removed");
  return removed;
}
