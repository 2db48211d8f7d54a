// A tus DataStore over the object-store port: each PATCH's bytes go to the store as they arrive, in
// part objects of at most `partBytes` (users/{uid}/uploads/{id}/part-NNNNN-xxxx), and the upload's
// state (owner, length, offset, parts, metadata) is a row in Postgres. Only single PUTs of a known
// size are used, so it runs the same on s3rver (whose multipart uploads are slow), SeaweedFS and S3
// (docs/decisions/0030-resumable-uploads.md).
import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import type { Db } from "@kikitori/shared/db";
import { type ObjectStore, sweepAbandonedUploads, uploadPartsPrefix } from "@kikitori/shared/server";
import { DataStore, ERRORS, Upload } from "@tus/utils";
import { appendPart, createUpload, deleteUpload, findUpload, partsOf } from "./repository.ts";

/** Part objects of 8 MiB: the most a PATCH holds in memory, and few objects per recording. */
export const RESUMABLE_PART_BYTES = 8 * 1024 * 1024;

/** Who creates an upload: set by the route before the tus server hands the upload to `create`. */
const owners = new WeakMap<Upload, string>();
export const setOwner = (upload: Upload, uid: string) => owners.set(upload, uid);

export interface PartsDataStoreOptions {
  db: Db;
  store: ObjectStore;
  /** Largest part object (bytes held in memory per PATCH while a part fills). */
  partBytes: number;
  /** An upload without a PATCH for this long has expired (Upload-Expires, the retention sweep). */
  expiryMs: number;
  logger: Parameters<typeof sweepAbandonedUploads>[0]["logger"];
  now?: () => Date;
}

export class PartsDataStore extends DataStore {
  private readonly now: () => Date;
  constructor(private readonly opts: PartsDataStoreOptions) {
    super();
    this.extensions = ["creation", "creation-with-upload", "termination", "expiration"];
    this.now = opts.now ?? (() => new Date());
  }

  override async create(upload: Upload): Promise<Upload> {
    const uid = owners.get(upload);
    if (!uid) throw new Error("an upload needs its owner before it is created");
    if (upload.size === undefined) throw ERRORS.INVALID_LENGTH;
    const now = this.now();
    await createUpload(this.opts.db, {
      id: upload.id,
      userId: uid,
      length: upload.size,
      metadata: upload.metadata ?? {},
      now,
    });
    upload.creation_date = now.toISOString();
    upload.storage = { type: "object-store", path: uploadPartsPrefix(uid, upload.id) };
    return upload;
  }

  /**
   * The upload as tus sees it. `creation_date` is its last activity (creation or PATCH): tus expires
   * an upload `getExpiration()` after it, so an upload expires a day after its last PATCH.
   */
  override async getUpload(id: string): Promise<Upload> {
    const row = await findUpload(this.opts.db, id);
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    return new Upload({
      id: row.id,
      size: Number(row.length),
      offset: Number(row.offset),
      metadata: row.metadata as Record<string, string | null>,
      creation_date: row.lastActivityAt.toISOString(),
      storage: { type: "object-store", path: uploadPartsPrefix(row.userId, row.id) },
    });
  }

  /**
   * Stores the body from `offset` on as parts of at most `partBytes`, recording each once it is in
   * the store (so a connection lost mid-PATCH keeps every byte that arrived). Returns the new offset.
   */
  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const row = await findUpload(this.opts.db, id);
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    if (Number(row.offset) !== offset) throw ERRORS.INVALID_OFFSET;
    const prefix = uploadPartsPrefix(row.userId, id);
    const parts = partsOf(row);
    let at = offset;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const body = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      const key = `${prefix}part-${String(parts.length).padStart(5, "0")}-${randomBytes(4).toString("hex")}`;
      await this.opts.store.put(key, body, body.length, "application/octet-stream");
      const part = { key, bytes: body.length };
      if (!(await appendPart(this.opts.db, id, at, parts, part, this.now()))) {
        await this.opts.store.remove(key).catch(() => undefined);
        throw ERRORS.INVALID_OFFSET;
      }
      parts.push(part);
      at += part.bytes;
    };
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        let rest = chunk;
        while (rest.length > 0) {
          const take = Math.min(rest.length, this.opts.partBytes - pendingBytes);
          pending.push(rest.subarray(0, take));
          pendingBytes += take;
          rest = rest.subarray(take);
          if (pendingBytes === this.opts.partBytes) await flush();
        }
      }
    } catch (err) {
      // The body broke off: what arrived is still the upload's, the client resumes after it.
      await flush().catch(() => undefined);
      throw err;
    }
    await flush();
    return at;
  }

  override async remove(id: string): Promise<void> {
    const row = await findUpload(this.opts.db, id);
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    await this.opts.store.removePrefix(uploadPartsPrefix(row.userId, id));
    await deleteUpload(this.opts.db, id);
  }

  override async deleteExpired(): Promise<number> {
    return sweepAbandonedUploads(this.opts, this.now(), this.opts.expiryMs);
  }

  override getExpiration(): number {
    return this.opts.expiryMs;
  }

  override async declareUploadLength(): Promise<void> {
    throw ERRORS.UNSUPPORTED_CREATION_DEFER_LENGTH_EXTENSION;
  }
}
