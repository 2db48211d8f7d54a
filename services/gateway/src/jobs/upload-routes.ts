// What speech recognition can do now (GET /api/speech) and the single-request upload of a recording
// (POST /api/upload): the multipart body streamed to a temp file within its bounds (upload-guards.ts),
// then the upload use case (upload-usecases.ts). The resumable way in is services/gateway/src/uploads/.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import {
  AppError,
  MAX_UPLOAD_BYTES,
  type SpeechStatus,
  speechStatusSchema,
  uploadResponseSchema,
} from "@kikitori/shared";
import type { Redis } from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { hasUnstorableChars } from "../input.ts";
import { headCapture } from "../lib/head-capture.ts";
import { sha256Tap } from "../lib/sha256-tap.ts";
import { assertMultipartBoundary, BodyWatch, UploadSlots } from "./upload-guards.ts";
import { DECODE_WAIT_MS, parseUploadFields, type UploadService } from "./upload-usecases.ts";

export interface UploadRoutesOptions {
  /** The uploads in flight per user are counted here (shared by every gateway). */
  redis: Redis;
  signer: TokenSigner;
  redisPrefix: string;
  tmpDir: string;
  /** Upload bounds: body idle/total time, uploads in flight per user. */
  uploadLimits?: {
    idleMs: number;
    totalMs: number;
    perUser: number;
  };
  /** Checks, stores and queues an uploaded recording (upload-usecases.ts). */
  uploads: UploadService;
  /** What speech recognition can do now (published by the transcription workers). */
  speechStatus: () => Promise<SpeechStatus>;
}

const unstorable = (what: string) =>
  new AppError("VALIDATION_FAILED", `${what} contains a NUL byte or an unpaired surrogate`);

/** What speech recognition can do now, and the upload of a recording. */
export const uploadRoutes: FastifyPluginAsyncZod<UploadRoutesOptions> = async (app, opts) => {
  const guard = requireAuth(opts.signer);
  const tags = ["transcription"];
  const limits = opts.uploadLimits ?? { idleMs: 30_000, totalMs: 600_000, perUser: 2 };
  const slots = new UploadSlots(
    opts.redis,
    opts.redisPrefix,
    limits.perUser,
    Math.ceil(limits.totalMs / 1000) + DECODE_WAIT_MS / 1000 + 300,
  );

  app.get(
    "/speech",
    {
      schema: {
        tags,
        summary:
          "What speech recognition can do now: engine, model, audio languages, and a notice when a rough fallback engine is in use",
        response: { 200: speechStatusSchema },
      },
    },
    async () => opts.speechStatus(),
  );

  app.post(
    "/upload",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Upload an interview recording (multipart: file, interviewer, interviewee, tone, interviewExample, model, uid, language = audio language: a Whisper code or auto, uiLanguage, speakers = auto or 1–6, glossary = names and terms one per line, else the account's glossary)",
        security: [{ bearer: [] }],
        consumes: ["multipart/form-data"],
        response: { 202: uploadResponseSchema, ...errorResponses(400, 401, 402, 403, 413, 415, 422) },
      },
    },
    async (req, reply) => {
      const uid = assertUid(req, undefined);
      if (!req.isMultipart()) throw new AppError("VALIDATION_FAILED", "Send the audio as multipart/form-data");
      assertMultipartBoundary(req.headers["content-type"]);
      const release = await slots.acquire(uid);
      const dir = await mkdtemp(path.join(opts.tmpDir, "kikitori-upload-")).catch(async (err) => {
        await release();
        throw err;
      });
      const tmpFile = path.join(dir, "audio");
      const watch = new BodyWatch(req, reply, limits);
      try {
        // 1. Stream the body: fields into a record, the file part to a temp file (never into memory),
        // within the body's time bounds; a body cut short or malformed is a 4xx, not a hang.
        const fields: Record<string, string> = {};
        // (assigned in the reading closure below: the cast keeps TypeScript from narrowing it to null)
        let fileInfo = null as { name: string; bytes: number; head: Buffer; sha256: string } | null;
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
              if (part.fieldname !== "file" || fileInfo) {
                part.file.resume();
                continue;
              }
              if (hasUnstorableChars(part.filename ?? "")) {
                part.file.resume();
                throw unstorable("the file name");
              }
              const capture = headCapture();
              const digest = sha256Tap();
              await pipeline(part.file, capture, digest, createWriteStream(tmpFile), { signal: watch.signal });
              if (part.file.truncated) {
                throw new AppError("FILE_TOO_LARGE", `The file is larger than ${MAX_UPLOAD_BYTES} bytes (20 MB)`);
              }
              const bytes = (await stat(tmpFile)).size;
              fileInfo = { name: part.filename || "audio", bytes, head: capture.head(), sha256: digest.hex() };
            }
          })(),
        );
        if (fields.uid) assertUid(req, fields.uid);
        const parsedFields = parseUploadFields(fields);
        // 2. The use case: checks, stores, records and queues the recording, and tells the user's sockets.
        const accepted = await opts.uploads.accept({
          userId: uid,
          fields: parsedFields,
          file: fileInfo && { path: tmpFile, ...fileInfo },
          correlationId: String(req.id),
          log: req.log,
        });
        const { jobId, bytes, format, durationSeconds: duration } = accepted;
        req.log.info({ jobId, bytes, format, duration }, "upload accepted");
        return reply.code(202).send({ message: "File uploaded", jobId });
      } finally {
        // The body may still be arriving (a timed-out upload): its temp folder and the user's slot go
        // once the reading has ended, which closing the connection brings about.
        void watch.settled.then(async () => {
          await rm(dir, { recursive: true, force: true }).catch(() => undefined);
          await release();
        });
      }
    },
  );
};
