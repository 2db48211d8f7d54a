// What speech recognition can do now (GET /api/speech) and the single-request upload of a recording
// (POST /api/upload): the multipart body read within its bounds (upload-body.ts, upload-guards.ts),
// then the upload use case (upload-usecases.ts), whose recording is stored and queued just after the
// answer (audio-handoff.ts). The resumable way in is services/gateway/src/uploads/.
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { AppError, type SpeechStatus, speechStatusSchema, uploadResponseSchema } from "@kikitori/shared";
import type { Redis } from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { assertUid, requireSignedToken } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { HeldBytes } from "./audio-handoff.ts";
import { ByteBudget, HELD_BODY_BUDGET, readUploadBody } from "./upload-body.ts";
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

/** What speech recognition can do now, and the upload of a recording. */
export const uploadRoutes: FastifyPluginAsyncZod<UploadRoutesOptions> = async (app, opts) => {
  const guard = requireSignedToken(opts.signer);
  const tags = ["transcription"];
  const limits = opts.uploadLimits ?? { idleMs: 30_000, totalMs: 600_000, perUser: 2 };
  const heldBodies = new ByteBudget(HELD_BODY_BUDGET);
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
      // What the upload needs besides its body (minutes left, the store answering…), asked for while it arrives.
      const prelude = opts.uploads.prepare(uid);
      const watch = new BodyWatch(req, reply, limits);
      // The token's login, checked while the body arrives: ended (401), the body is cut.
      const live = req.authLive;
      if (!live) throw new AppError("INTERNAL", "The upload route must be guarded by requireSignedToken");
      live.catch((err) => watch.refuse(err));
      // One of the user's upload slots, taken while the body arrives: refused (429), the body is cut.
      const slot = slots.acquire(uid);
      slot.catch((err) => watch.refuse(err));
      const releaseSlot = () =>
        slot.then(
          (release) => release(),
          () => undefined,
        );
      // The upload's own folder, made while the body arrives too (needed once the file part is written).
      const dir = mkdtemp(path.join(opts.tmpDir, "kikitori-upload-"));
      dir.catch(() => undefined);
      let handedOver = false;
      let held: HeldBytes | undefined;
      try {
        // 1. The body: fields into a record, the file part held in memory or on disk (upload-body.ts).
        const tmpFile = dir.then((d) => path.join(d, "audio"));
        const { fields, file } = await readUploadBody(req, watch, tmpFile, heldBodies);
        held = file?.held;
        await live;
        await slot;
        if (fields.uid) assertUid(req, fields.uid);
        const parsedFields = parseUploadFields(fields);
        // 2. The use case: checks and records the recording; its folder is then handed off (stored and
        // queued after the answer).
        const accepted = await opts.uploads.accept({
          userId: uid,
          fields: parsedFields,
          file,
          correlationId: String(req.id),
          log: req.log,
          prelude,
        });
        handedOver = true;
        const { jobId, bytes, format, durationSeconds: duration } = accepted;
        req.log.info({ jobId, bytes, format, duration }, "upload accepted");
        return reply.code(202).send({ message: "File uploaded", jobId });
      } finally {
        // The body may still be arriving (a timed-out upload): its temp folder and held bytes (unless
        // handed off) and the user's slot go once the reading has ended, which closing the connection
        // brings about.
        void watch.settled.then(async () => {
          if (!handedOver) {
            held?.free();
            await dir.then((d) => rm(d, { recursive: true, force: true })).catch(() => undefined);
          }
          await releaseSlot();
        });
      }
    },
  );
};
