// What happens to a resumable upload around its bytes: the checks at creation (the plan's size limit,
// the form's fields) and, once the last byte is in, its parts joined into one file on this gateway's
// disk and handed to the same upload use case as POST /api/upload (sniffing, probing, the quota on the
// probed length, the decode check, the job), so both ways in are one code path.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError, type ErrorCode, PLAN_CATALOGUE } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  effectiveUsage,
  type Logger,
  type ObjectStore,
  UPLOAD_EXPIRY_MS,
  uploadPartsPrefix,
} from "@kikitori/shared/server";
import { hasUnstorableChars } from "../input.ts";
import { usageRow } from "../jobs/repository.ts";
import { parseUploadFields, type UploadFields, type UploadService } from "../jobs/upload-usecases.ts";
import { headCapture } from "../lib/head-capture.ts";
import {
  claimFinish,
  countOpenUploads,
  findUpload,
  finished,
  ownUpload,
  partsOf,
  refused,
  releaseFinish,
  type UploadRow,
} from "./repository.ts";

/** Unfinished resumable uploads one user may have at once. */
export const OPEN_UPLOADS_PER_USER = 5;

/** The caller of a tus request (from its bearer token). */
export interface Caller {
  uid: string;
  correlationId: string;
  log: Pick<Logger, "warn" | "info">;
}

/** Upload-Metadata keys that describe the file; every other key is a field of the upload form. */
const FILE_KEYS = new Set(["filename", "filetype"]);

/** The form's fields carried in Upload-Metadata, checked like the single POST's (400 on a bad one). */
export function fieldsFromMetadata(uid: string, metadata: Record<string, string | null> | undefined): UploadFields {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (hasUnstorableChars(key) || hasUnstorableChars(value ?? "")) {
      throw new AppError("VALIDATION_FAILED", `Upload-Metadata '${key}' contains a NUL byte or an unpaired surrogate`);
    }
    if (!FILE_KEYS.has(key) && value !== null) fields[key] = value;
  }
  if (fields.uid && fields.uid !== uid) {
    throw new AppError("UID_MISMATCH", "The uid does not match the signed-in user");
  }
  return parseUploadFields(fields);
}

export class ResumableUploads {
  constructor(
    private readonly deps: {
      db: Db;
      store: ObjectStore;
      uploads: UploadService;
      tmpDir: string;
      now?: () => Date;
    },
  ) {}

  /** The user's plan's upload limit in bytes (the plan in effect now, a due switch counted). */
  async maxUploadBytes(uid: string): Promise<number> {
    const row = await usageRow(this.deps.db, uid);
    return PLAN_CATALOGUE.maxUploadBytes(effectiveUsage(row, this.now()).plan);
  }

  /**
   * Creation: something to upload, with valid form fields, and fewer than OPEN_UPLOADS_PER_USER
   * unfinished uploads (each holds stored parts until it ends or expires). The plan's size limit is the
   * route's check.
   */
  async checkCreation(caller: Caller, length: number | undefined, metadata: Record<string, string | null> | undefined) {
    if (length === 0) throw new AppError("FILE_EMPTY", "The audio file is empty");
    fieldsFromMetadata(caller.uid, metadata);
    const open = await countOpenUploads(this.deps.db, caller.uid, new Date(this.now().getTime() - UPLOAD_EXPIRY_MS));
    if (open >= OPEN_UPLOADS_PER_USER) {
      throw new AppError(
        "RATE_LIMITED",
        `At most ${OPEN_UPLOADS_PER_USER} unfinished uploads at a time: finish or cancel one first`,
        { details: { retryAfterSeconds: 60 } },
      );
    }
  }

  /** 404 unless the upload is the caller's. */
  async assertOwner(caller: Caller, id: string): Promise<UploadRow> {
    return ownUpload(this.deps.db, caller.uid, id);
  }

  /** GET /api/uploads/{id}. */
  async status(caller: Caller, id: string) {
    const row = await ownUpload(this.deps.db, caller.uid, id);
    return {
      offset: Number(row.offset),
      length: Number(row.length),
      jobId: row.jobId,
      error: row.errorCode ? { code: row.errorCode as ErrorCode, message: row.errorMessage ?? "" } : null,
    };
  }

  /**
   * The last byte is in: the recording becomes a job, or the upload is refused with the single POST's
   * answer (415, 422, 402…). Returns the job id; null when another request is finishing it already.
   * A refusal is final (kept for GET /api/uploads/{id}, the parts go); a passing fault (the store down)
   * leaves the parts for another try.
   */
  async finish(caller: Caller, id: string): Promise<string | null> {
    const { db, store } = this.deps;
    const row = await ownUpload(db, caller.uid, id);
    if (!(await claimFinish(db, id, this.now()))) {
      const now = await findUpload(db, id);
      if (now?.errorCode) throw new AppError(now.errorCode as ErrorCode, now.errorMessage ?? "");
      return now?.jobId ?? null;
    }
    const dir = await mkdtemp(path.join(this.deps.tmpDir, "kikitori-resumable-"));
    let handedOver = false;
    try {
      const file = await this.joinParts(row, path.join(dir, "audio"));
      const accepted = await this.deps.uploads.accept({
        userId: caller.uid,
        fields: fieldsFromMetadata(caller.uid, row.metadata as Record<string, string | null>),
        file,
        correlationId: caller.correlationId,
        log: caller.log,
      });
      handedOver = true; // the joined file's folder is the hand-off's now (stored and queued after the answer)
      await finished(db, id, accepted.jobId);
      caller.log.info({ jobId: accepted.jobId, uploadId: id, bytes: accepted.bytes }, "resumable upload accepted");
      await store.removePrefix(uploadPartsPrefix(row.userId, id)).catch(() => undefined);
      return accepted.jobId;
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        await refused(db, id, err);
        await store.removePrefix(uploadPartsPrefix(row.userId, id)).catch(() => undefined);
      } else {
        await releaseFinish(db, id);
      }
      throw err;
    } finally {
      if (!handedOver) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** The parts, in order, into one file (streamed: never the whole recording in memory). */
  private async joinParts(row: UploadRow, file: string) {
    const parts = partsOf(row);
    const store = this.deps.store;
    const capture = headCapture();
    await pipeline(
      Readable.from(
        (async function* () {
          for (const part of parts) yield* await store.get(part.key);
        })(),
      ),
      capture,
      createWriteStream(file),
    );
    const bytes = (await stat(file)).size;
    if (bytes !== Number(row.length)) {
      throw new AppError("INTERNAL", `The stored upload has ${bytes} of its ${row.length} bytes`);
    }
    const metadata = row.metadata as Record<string, string | null>;
    return { path: file, name: metadata.filename || "audio", bytes, head: capture.head() };
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }
}
