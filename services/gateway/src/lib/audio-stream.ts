import { AppError } from "@kikitori/shared";
import type { ObjectStore } from "@kikitori/shared/server";
import type { FastifyReply, FastifyRequest } from "fastify";

/** A stored recording: its object key, type and size. */
export interface StoredAudio {
  key: string;
  mime: string;
  bytes: number;
}

/**
 * Streams a stored recording, whole (200) or one byte range of it (206, `Range: bytes=…`), with
 * `accept-ranges` so players can seek; a range outside the file is 416 RANGE_NOT_SATISFIABLE.
 * Used by the owner's GET /api/audio/{jobId} and the share link's signed audio URL.
 */
export async function sendStoredAudio(
  req: FastifyRequest,
  reply: FastifyReply,
  store: ObjectStore,
  audio: StoredAudio,
  cacheControl = "private, max-age=0",
): Promise<FastifyReply> {
  const size = audio.bytes;
  reply.header("accept-ranges", "bytes").header("content-type", audio.mime).header("cache-control", cacheControl);
  const range = parseRange(req.headers.range, size);
  if (range === "invalid") {
    reply.header("content-range", `bytes */${size}`).header("content-type", "application/json; charset=utf-8");
    throw new AppError("RANGE_NOT_SATISFIABLE", `The range is outside the file (${size} bytes)`);
  }
  if (range) {
    reply.code(206).header("content-range", `bytes ${range.start}-${range.end}/${size}`);
    reply.header("content-length", String(range.end - range.start + 1));
    return reply.send(await store.get(audio.key, range));
  }
  reply.header("content-length", String(size));
  return reply.send(await store.get(audio.key));
}

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range; multi-range requests get the whole file. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | "invalid" {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  let start: number;
  let end: number;
  if (m[1] === "" && m[2] === "") return "invalid";
  if (m[1] === "") {
    const n = Number(m[2]);
    if (n === 0) return "invalid";
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return "invalid";
  return { start, end };
}
