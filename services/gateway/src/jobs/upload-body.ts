// The single POST's multipart body: its fields into a record, its file part into memory (a recording
// measured from its header, while this gateway's budget for held bodies allows) or to a temp file,
// within the body's time bounds (upload-guards.ts). Held in memory, an uncompressed WAV needs no disk
// before the answer: the hand-off writes it just after (audio-handoff.ts, docs/decisions/0030).
import { createWriteStream } from "node:fs";
import { stat, writeFile } from "node:fs/promises";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError, MAX_UPLOAD_BYTES } from "@kikitori/shared";
import { wavPcmInfo } from "@kikitori/shared/server";
import type { FastifyRequest } from "fastify";
import { hasUnstorableChars } from "../input.ts";
import { headCapture } from "../lib/head-capture.ts";
import type { BodyWatch } from "./upload-guards.ts";
import type { UploadedFile } from "./upload-usecases.ts";

/** Bytes of upload bodies one gateway may hold in memory at once; the rest go to disk as they arrive. */
export const HELD_BODY_BUDGET = 256 * 1024 * 1024;

/** A gateway-wide count of bytes held, taken for a whole body up front (its Content-Length). */
export class ByteBudget {
  private used = 0;
  constructor(readonly limit: number) {}

  /** Takes `bytes`: their release (which gives them back once, however often it is called), or null past the limit. */
  take(bytes: number): (() => void) | null {
    if (this.used + bytes > this.limit) return null;
    this.used += bytes;
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.used -= bytes;
    };
  }

  get inUse(): number {
    return this.used;
  }
}

const unstorable = (what: string) =>
  new AppError("VALIDATION_FAILED", `${what} contains a NUL byte or an unpaired surrogate`);

/**
 * Reads the body: the fields, and the file part as `tmpFile` (or held in memory, see above; the
 * path is awaited only when the file part needs it, so its folder can be made while the body
 * arrives). A body cut short or malformed is a 4xx, not a hang. The hold on the budget is given
 * back here unless the file comes back held (then by whoever writes it: the hand-off, or the caller
 * when refused).
 */
export async function readUploadBody(
  req: FastifyRequest,
  watch: BodyWatch,
  tmpFile: Promise<string>,
  budget: ByteBudget,
): Promise<{ fields: Record<string, string>; file: UploadedFile | null }> {
  const fields: Record<string, string> = {};
  let file: UploadedFile | null = null;
  const declared = Number(req.headers["content-length"]);
  const release =
    Number.isSafeInteger(declared) && declared <= MAX_UPLOAD_BYTES + 1024 * 1024 ? budget.take(declared) : null;
  const free = release ?? (() => undefined);
  try {
    await watch.guard(
      (async () => {
        for await (const part of req.parts()) {
          if (hasUnstorableChars(part.fieldname)) throw unstorable("a field name");
          if (part.type === "field") {
            if (typeof part.value === "string") {
              if (hasUnstorableChars(part.value)) throw unstorable(`the field '${part.fieldname}'`);
              fields[part.fieldname] = part.value;
            }
            continue;
          }
          if (part.fieldname !== "file" || file) {
            part.file.resume();
            continue;
          }
          if (hasUnstorableChars(part.filename ?? "")) {
            part.file.resume();
            throw unstorable("the file name");
          }
          file = await (release ? receiveHeld : receiveToDisk)(
            part.file,
            tmpFile,
            watch.signal,
            part.filename || "audio",
          );
          if (part.file.truncated) {
            throw new AppError("FILE_TOO_LARGE", `The file is larger than ${MAX_UPLOAD_BYTES} bytes (20 MB)`);
          }
        }
      })(),
    );
  } catch (err) {
    free();
    throw err;
  }
  const held = (file as UploadedFile | null)?.held;
  if (!held) free();
  else held.free = free;
  return { fields, file };
}

/** The file part to disk as it arrives (large writes: the body is not held back 16 KiB at a time). */
async function receiveToDisk(
  stream: NodeJS.ReadableStream,
  tmpFilePath: Promise<string>,
  signal: AbortSignal,
  name: string,
): Promise<UploadedFile> {
  const tmpFile = await tmpFilePath;
  const capture = headCapture();
  await pipeline(stream, capture, createWriteStream(tmpFile, { highWaterMark: 4 << 20 }), { signal });
  return { path: tmpFile, name, bytes: (await stat(tmpFile)).size, head: capture.head() };
}

/**
 * The file part into memory. Only a recording measured from its header (an uncompressed WAV) stays
 * held; anything else is written to `tmpFile` now, for ffprobe and the decode check.
 */
async function receiveHeld(
  stream: NodeJS.ReadableStream,
  tmpFilePath: Promise<string>,
  signal: AbortSignal,
  name: string,
): Promise<UploadedFile> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const capture = headCapture();
  const keep = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      bytes += chunk.length;
      cb();
    },
  });
  await pipeline(stream, capture, keep, { signal });
  const head = capture.head();
  const tmpFile = await tmpFilePath;
  if (wavPcmInfo(head, bytes)) return { path: tmpFile, name, bytes, head, held: { chunks, free: () => undefined } };
  await writeFile(tmpFile, chunks);
  return { path: tmpFile, name, bytes, head };
}
