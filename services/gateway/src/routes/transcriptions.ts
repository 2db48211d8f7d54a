import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AppError,
  isUuid,
  type Language,
  MAX_UPLOAD_BYTES,
  matchLanguage,
  normalizeLanguage,
  type PlanName,
  type PlanQuota,
  pageUrl,
  QUEUES,
  speechRefuses,
  speechStatusSchema,
  type TranscriptSegment,
  transcriptionJobSchema,
  transcriptionListSchema,
  transcriptionSnapshotSchema,
  uploadFieldsSchema,
  uploadResponseSchema,
} from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  createQueue,
  decodedSeconds,
  mimeOf,
  type ObjectStore,
  probeAudio,
  publishProgress,
  type Redis,
  readSpeechStatus,
  secondsLeft,
  sniffAudioFormat,
} from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { audioFileUrl, isAudioExpired, toSnapshot } from "./snapshot.ts";

export interface TranscriptionRoutesOptions {
  db: Db;
  redis: Redis;
  store: ObjectStore;
  signer: TokenSigner;
  quotas: Record<PlanName, PlanQuota>;
  redisPrefix: string;
  retentionDays: number;
  publicUrl: string;
  tmpDir: string;
}

const HEAD_BYTES = 4096;

/** Keeps the first bytes of a stream (for format sniffing) while passing everything through. */
function headCapture(): Transform & { head: () => Buffer } {
  const chunks: Buffer[] = [];
  let kept = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (kept < HEAD_BYTES) {
        chunks.push(chunk.subarray(0, HEAD_BYTES - kept));
        kept += Math.min(chunk.length, HEAD_BYTES - kept);
      }
      cb(null, chunk);
    },
  }) as Transform & { head: () => Buffer };
  t.head = () => Buffer.concat(chunks);
  return t;
}

export const transcriptionRoutes: FastifyPluginAsyncZod<TranscriptionRoutesOptions> = async (app, opts) => {
  const { db, store } = opts;
  const guard = requireAuth(opts.signer);
  const queue = createQueue(QUEUES.transcription, opts.redis, opts.redisPrefix);
  app.addHook("onClose", async () => {
    await queue.close();
  });
  const tags = ["transcription"];
  const planLink = (lang: Language) => pageUrl(opts.publicUrl, lang, "upgradePlan");
  /** The user's own job, or null (also for an id that is not a UUID, so nothing leaks). */
  const findOwnJob = (uid: string, jobId: string) =>
    isUuid(jobId) ? db.transcriptionJob.findFirst({ where: { id: jobId, userId: uid } }) : null;
  /** The segments of a running job whose live text went out already, in order. */
  const liveSegments = async (jobId: string): Promise<TranscriptSegment[]> => {
    const chunks = await db.transcriptChunk.findMany({
      where: { jobId, publishedAt: { not: null } },
      orderBy: { index: "asc" },
      select: { segments: true },
    });
    return chunks.flatMap((c) => (Array.isArray(c.segments) ? (c.segments as TranscriptSegment[]) : []));
  };

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
    async () => readSpeechStatus(opts.redis, opts.redisPrefix),
  );

  app.post(
    "/upload",
    {
      preHandler: guard,
      schema: {
        tags,
        summary:
          "Upload an interview recording (multipart: file, interviewer, interviewee, tone, interviewExample, model, uid, language = audio language: a Whisper code or auto, uiLanguage)",
        security: [{ bearer: [] }],
        consumes: ["multipart/form-data"],
        response: { 202: uploadResponseSchema, ...errorResponses(400, 401, 402, 403, 413, 415, 422) },
      },
    },
    async (req, reply) => {
      const uid = assertUid(req, undefined);
      if (!req.isMultipart()) throw new AppError("VALIDATION_FAILED", "Send the audio as multipart/form-data");
      const dir = await mkdtemp(path.join(opts.tmpDir, "kikitori-upload-"));
      const tmpFile = path.join(dir, "audio");
      try {
        // 1. Stream the body: fields into a record, the file part to a temp file (never into memory).
        const fields: Record<string, string> = {};
        let fileInfo: { name: string; bytes: number; head: Buffer } | null = null;
        for await (const part of req.parts()) {
          if (part.type === "field") {
            if (typeof part.value === "string") fields[part.fieldname] = part.value;
            continue;
          }
          if (part.fieldname !== "file" || fileInfo) {
            part.file.resume();
            continue;
          }
          const capture = headCapture();
          await pipeline(part.file, capture, createWriteStream(tmpFile));
          if (part.file.truncated) {
            throw new AppError("FILE_TOO_LARGE", `The file is larger than ${MAX_UPLOAD_BYTES} bytes (20 MB)`);
          }
          fileInfo = { name: part.filename || "audio", bytes: (await stat(tmpFile)).size, head: capture.head() };
        }
        if (fields.uid) assertUid(req, fields.uid);
        const parsed = uploadFieldsSchema.safeParse(fields);
        if (!parsed.success) {
          throw new AppError(
            "VALIDATION_FAILED",
            parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
            { details: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
          );
        }
        if (!fileInfo) throw new AppError("FILE_MISSING", "No audio file was sent (field 'file')");
        if (fileInfo.bytes === 0) throw new AppError("FILE_EMPTY", "The audio file is empty");
        // The engine must hear the language (a start-time fact the workers publish): refuse before any decoding.
        const speech = await readSpeechStatus(opts.redis, opts.redisPrefix);
        if (speechRefuses(speech, parsed.data.language)) {
          throw new AppError(
            "TRANSCRIPTION_LANGUAGE_UNSUPPORTED",
            `The speech engine in use (${speech.engine}) only transcribes ${[speech.languages].flat().join(", ")}, not "${parsed.data.language}". ${speech.notice ? `${speech.notice.reason} Set ${speech.notice.setting} to transcribe every language.` : ""}`.trim(),
          );
        }

        // 2. Recognise the audio from its bytes, then make sure it really decodes.
        const format = sniffAudioFormat(fileInfo.head);
        if (!format) throw new AppError("UNSUPPORTED_AUDIO", "The file is not MP3, WAV, OGG, FLAC or AAC audio");
        const probe = await probeAudio(tmpFile);
        if (!probe) throw new AppError("UNSUPPORTED_AUDIO", "The audio could not be read");
        const decoded = await decodedSeconds(tmpFile);
        if (decoded < 0.5 || decoded < probe.durationSeconds * 0.5) {
          throw new AppError("UNSUPPORTED_AUDIO", "The audio is damaged or incomplete and could not be decoded");
        }
        const duration = decoded;

        // 3. Quota: the minutes left must cover the recording.
        const fields2 = parsed.data;
        const lang = normalizeLanguage(fields2.uiLanguage ?? matchLanguage(fields2.language));
        const left = await secondsLeft(db, uid, opts.quotas);
        if (left < Math.ceil(duration)) {
          throw new AppError(
            "QUOTA_EXCEEDED",
            `This recording is ${Math.ceil(duration / 60)} min long, but only ${Math.floor(left / 60)} min are left this month`,
            { link: planLink(lang) },
          );
        }

        // 4. Store under a per-user key, record the job, enqueue the key, tell the user's sockets.
        const jobId = randomUUID();
        const audioKey = `users/${uid}/audio/${jobId}.${format}`;
        await store.put(audioKey, createReadStream(tmpFile), fileInfo.bytes, mimeOf(format));
        const correlationId = String(req.id);
        await db.transcriptionJob.create({
          data: {
            id: jobId,
            userId: uid,
            correlationId,
            audioKey,
            audioMime: mimeOf(format),
            audioFormat: format,
            audioBytes: fileInfo.bytes,
            durationSeconds: duration,
            originalName: fileInfo.name.slice(0, 255),
            model: fields2.model,
            interviewer: fields2.interviewer,
            interviewee: fields2.interviewee,
            tone: fields2.tone,
            interviewExample: fields2.interviewExample,
            language: lang,
            audioLanguage: fields2.language,
            audioExpiresAt: new Date(Date.now() + opts.retentionDays * 86_400_000),
          },
        });
        const payload = transcriptionJobSchema.parse({ jobId, userId: uid, audioKey, correlationId });
        await queue.add("transcribe", payload, { jobId });
        await publishProgress(opts.redis, opts.redisPrefix, {
          userId: uid,
          correlationId,
          event: { jobId, status: "File uploaded", audioFileUrl: audioFileUrl(jobId) },
        }).catch((err) => req.log.warn({ err }, "could not publish File uploaded"));
        req.log.info({ jobId, bytes: fileInfo.bytes, format, duration }, "upload accepted");
        return reply.code(202).send({ message: "File uploaded", jobId });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  app.get(
    "/transcriptions/:jobId",
    {
      preHandler: guard,
      schema: {
        tags,
        summary: "The job's snapshot",
        security: [{ bearer: [] }],
        params: z.object({ jobId: z.string().max(64) }),
        response: { 200: transcriptionSnapshotSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const uid = assertUid(req, undefined);
      const job = await findOwnJob(uid, req.params.jobId);
      if (!job) throw new AppError("NOT_FOUND", "No such transcription");
      const live = job.status === "transcribing" && !job.segments ? await liveSegments(job.id) : [];
      return toSnapshot(job, new Date(), live);
    },
  );

  app.get(
    "/transcriptions",
    {
      preHandler: guard,
      schema: {
        tags,
        summary: "The user's transcriptions, newest first",
        security: [{ bearer: [] }],
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
        response: { 200: transcriptionListSchema, ...errorResponses(401) },
      },
    },
    async (req) => {
      const uid = assertUid(req, undefined);
      const jobs = await db.transcriptionJob.findMany({
        where: { userId: uid },
        orderBy: { createdAt: "desc" },
        take: req.query.limit,
      });
      return { jobs: jobs.map((j) => toSnapshot(j)) };
    },
  );

  app.get(
    "/audio/:jobId",
    {
      preHandler: guard,
      schema: {
        tags,
        summary: "The stored audio (HTTP range requests); 410 after the retention period",
        security: [{ bearer: [] }],
        params: z.object({ jobId: z.string().max(64) }),
      },
    },
    async (req, reply) => {
      const uid = assertUid(req, undefined);
      const job = await findOwnJob(uid, req.params.jobId);
      if (!job) throw new AppError("NOT_FOUND", "No such recording");
      if (isAudioExpired(job)) {
        throw new AppError("AUDIO_EXPIRED", "The audio has expired and was deleted");
      }
      const size = job.audioBytes;
      reply
        .header("accept-ranges", "bytes")
        .header("content-type", job.audioMime)
        .header("cache-control", "private, max-age=0");
      const range = parseRange(req.headers.range, size);
      if (range === "invalid") {
        return reply.code(416).header("content-range", `bytes */${size}`).send();
      }
      if (range) {
        reply.code(206).header("content-range", `bytes ${range.start}-${range.end}/${size}`);
        reply.header("content-length", String(range.end - range.start + 1));
        return reply.send(await store.get(job.audioKey, range));
      }
      reply.header("content-length", String(size));
      return reply.send(await store.get(job.audioKey));
    },
  );
};

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
