// The resumable uploads' rows (table `uploads`), in one place below the tus routes and the data store.
// An upload's state lives here (owner, length, offset, parts, metadata, the job it became); its bytes
// are part objects in the object store.
import { AppError, isUuid } from "@kikitori/shared";
import type { Db, Prisma } from "@kikitori/shared/db";

/** One stored part of an upload, in order. */
export interface UploadPart {
  key: string;
  bytes: number;
}

export type UploadRow = Prisma.UploadGetPayload<Record<string, never>>;

export const partsOf = (row: Pick<UploadRow, "parts">): UploadPart[] =>
  Array.isArray(row.parts) ? (row.parts as unknown as UploadPart[]) : [];

/** The upload, or null (also for an id that is not a UUID). */
export function findUpload(db: Db, id: string): Promise<UploadRow | null> {
  return isUuid(id) ? db.upload.findUnique({ where: { id } }) : Promise.resolve(null);
}

/** The user's own upload, or 404 NOT_FOUND (someone else's is as unknown as a missing one). */
export async function ownUpload(db: Db, uid: string, id: string): Promise<UploadRow> {
  const row = await findUpload(db, id);
  if (!row || row.userId !== uid) throw new AppError("NOT_FOUND", "No such upload");
  return row;
}

/** The user's uploads still waiting for bytes (not finished, not refused, not expired). */
export function countOpenUploads(db: Db, uid: string, activeSince: Date): Promise<number> {
  return db.upload.count({
    where: { userId: uid, jobId: null, errorCode: null, lastActivityAt: { gt: activeSince } },
  });
}

export async function createUpload(
  db: Db,
  row: { id: string; userId: string; length: number; metadata: Record<string, string | null>; now: Date },
): Promise<void> {
  await db.upload.create({
    data: {
      id: row.id,
      userId: row.userId,
      length: BigInt(row.length),
      metadata: row.metadata,
      parts: [],
      createdAt: row.now,
      lastActivityAt: row.now,
    },
  });
}

/**
 * Records a part stored at `offset`: only while the upload is still at that offset (a second writer on
 * another gateway that moved it first wins, and this part is not counted). False when it was not.
 */
export async function appendPart(
  db: Db,
  id: string,
  offset: number,
  parts: UploadPart[],
  part: UploadPart,
  now: Date,
): Promise<boolean> {
  const { count } = await db.upload.updateMany({
    where: { id, offset: BigInt(offset), finishingAt: null },
    data: {
      offset: BigInt(offset + part.bytes),
      parts: [...parts, part].map((p) => ({ key: p.key, bytes: p.bytes })),
      lastActivityAt: now,
    },
  });
  return count === 1;
}

/** Marks the complete upload as being finished; false when another request is already at it or it is done. */
export async function claimFinish(db: Db, id: string, now: Date): Promise<boolean> {
  const { count } = await db.upload.updateMany({
    where: { id, finishingAt: null, jobId: null, errorCode: null },
    data: { finishingAt: now, lastActivityAt: now },
  });
  return count === 1;
}

/** The upload became a job; its parts are gone. */
export async function finished(db: Db, id: string, jobId: string): Promise<void> {
  await db.upload.updateMany({ where: { id }, data: { jobId, parts: [] } });
}

/** The upload was refused (not audio, damaged, over the quota): the answer stays for GET /api/uploads/{id}. */
export async function refused(db: Db, id: string, error: AppError): Promise<void> {
  await db.upload.updateMany({
    where: { id },
    data: { errorCode: error.code, errorMessage: error.message.slice(0, 1000), parts: [] },
  });
}

/** A passing fault while finishing (the store was down): the next PATCH or HEAD-and-PATCH may try again. */
export async function releaseFinish(db: Db, id: string): Promise<void> {
  await db.upload.updateMany({ where: { id, jobId: null, errorCode: null }, data: { finishingAt: null } });
}

export async function deleteUpload(db: Db, id: string): Promise<void> {
  await db.upload.deleteMany({ where: { id } });
}
