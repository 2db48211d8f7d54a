import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AppError,
  applySpeakerRename,
  isUuid,
  type JobSpeaker,
  type Language,
  MAX_UPLOAD_BYTES,
  matchLanguage,
  normalizeLanguage,
  type PlanName,
  type PlanQuota,
  pageUrl,
  QUEUES,
  relabelText,
  renameSpeakersSchema,
  speechRefuses,
  speechStatusSchema,
  type TranscriptSegment,
  transcriptionJobSchema,
  transcriptionListQuerySchema,
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
import { hasUnstorableChars } from "../input.ts";
import { audioFileUrl, isAudioExpired, toSnapshot } from "./snapshot.ts";
import { assertMultipartBoundary, BodyWatch, Semaphore, UploadSlots } from "./upload-guards.ts";

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
  /** Upload bounds (issue #14): body idle/total time, uploads in flight per user, decodes per gateway. */
  uploadLimits?: {
    idleMs: number;
    totalMs: number;
    perUser: number;
    decodesPerGateway: number;
  };
}

/** How long an upload waits for a decode slot of its gateway before a 503. */
const DECODE_WAIT_MS = 60_000;

const HEAD_BYTES = 4096;

const unstorable = (what: string) =>
  new AppError("VALIDATION_FAILED", `${what} contains a NUL byte or an unpaired surrogate`);

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
  const limits = opts.uploadLimits ?? { idleMs: 30_000, totalMs: 600_000, perUser: 2, decodesPerGateway: 2 };
  const slots = new UploadSlots(
    opts.redis,
    opts.redisPrefix,
    limits.perUser,
    Math.ceil(limits.totalMs / 1000) + DECODE_WAIT_MS / 1000 + 300,
  );
  const decodes = new Semaphore(limits.decodesPerGateway);
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
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Upload an interview recording (multipart: file, interviewer, interviewee, tone, interviewExample, model, uid, language = audio language: a Whisper code or auto, uiLanguage, speakers = auto or 1–6)",
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
        let fileInfo = null as { name: string; bytes: number; head: Buffer } | null;
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
              await pipeline(part.file, capture, createWriteStream(tmpFile), { signal: watch.signal });
              if (part.file.truncated) {
                throw new AppError("FILE_TOO_LARGE", `The file is larger than ${MAX_UPLOAD_BYTES} bytes (20 MB)`);
              }
              fileInfo = { name: part.filename || "audio", bytes: (await stat(tmpFile)).size, head: capture.head() };
            }
          })(),
        );
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

        // 2. Recognise the audio from its bytes and read its duration from the header (ffprobe);
        // 3. the minutes left must cover it, settled before any decoding; 4. then make sure it really
        // decodes, reading no further than the minutes left (a header may claim less than there is).
        const format = sniffAudioFormat(fileInfo.head);
        if (!format) throw new AppError("UNSUPPORTED_AUDIO", "The file is not MP3, WAV, OGG, FLAC or AAC audio");
        const fields2 = parsed.data;
        const lang = normalizeLanguage(fields2.uiLanguage ?? matchLanguage(fields2.language));
        const left = await secondsLeft(db, uid, opts.quotas);
        const overQuota = (seconds: number) =>
          new AppError(
            "QUOTA_EXCEEDED",
            `This recording is ${Math.ceil(seconds / 60)} min long, but only ${Math.floor(left / 60)} min are left this month`,
            { link: planLink(lang) },
          );
        const releaseDecode = await decodes.acquire(DECODE_WAIT_MS);
        let decoded: number;
        try {
          const probe = await probeAudio(tmpFile);
          if (!probe) throw new AppError("UNSUPPORTED_AUDIO", "The audio could not be read");
          if (left < Math.ceil(probe.durationSeconds)) throw overQuota(probe.durationSeconds);
          decoded = await decodedSeconds(tmpFile, left + 1);
          if (decoded < 0.5 || decoded < probe.durationSeconds * 0.5) {
            throw new AppError("UNSUPPORTED_AUDIO", "The audio is damaged or incomplete and could not be decoded");
          }
        } finally {
          releaseDecode();
        }
        const duration = decoded;
        if (left < Math.ceil(duration)) throw overQuota(duration);

        // 4. Store under a per-user key, record the job, enqueue the key, tell the user's sockets.
        const jobId = randomUUID();
        const audioKey = `users/${uid}/audio/${jobId}.${format}`;
        await store.put(audioKey, createReadStream(tmpFile), fileInfo.bytes, mimeOf(format)).catch(async (err) => {
          // Nothing half-written stays behind (a PUT cut mid-way), and the answer says "try again".
          await store.remove(audioKey).catch(() => undefined);
          throw new AppError("SERVICE_UNAVAILABLE", "The file store is unavailable right now; please try again", {
            cause: err,
          });
        });
        const correlationId = String(req.id);
        // No job row, no object: a failed insert takes the stored audio back out.
        await db.transcriptionJob
          .create({
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
              speakerCount: fields2.speakers,
              audioExpiresAt: new Date(Date.now() + opts.retentionDays * 86_400_000),
            },
          })
          .catch(async (err) => {
            await store.remove(audioKey).catch(() => undefined);
            throw err;
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
        // The body may still be arriving (a timed-out upload): its temp folder and the user's slot go
        // once the reading has ended, which closing the connection brings about.
        void watch.settled.then(async () => {
          await rm(dir, { recursive: true, force: true }).catch(() => undefined);
          await release();
        });
      }
    },
  );

  app.get(
    "/transcriptions/:jobId",
    {
      onRequest: guard,
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

  app.patch(
    "/transcriptions/:jobId/speakers",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Rename speakers (by id, as in the segments) and/or swap interviewer and interviewee; the interview text follows",
        security: [{ bearer: [] }],
        params: z.object({ jobId: z.string().max(64) }),
        body: renameSpeakersSchema,
        response: { 200: transcriptionSnapshotSchema, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const uid = assertUid(req, undefined);
      const job = await findOwnJob(uid, req.params.jobId);
      if (!job) throw new AppError("NOT_FOUND", "No such transcription");
      const speakers = Array.isArray(job.speakers) ? (job.speakers as JobSpeaker[]) : [];
      if (speakers.length === 0 || job.rewrittenText === null) {
        throw new AppError("JOB_NOT_READY", "The speakers are named once the interview text is written");
      }
      let change: ReturnType<typeof applySpeakerRename>;
      try {
        change = applySpeakerRename(speakers, req.body);
      } catch (err) {
        throw new AppError("VALIDATION_FAILED", (err as Error).message);
      }
      // Only if nobody changed the text meanwhile (the row's updatedAt is the version).
      const updated = await db.transcriptionJob.updateMany({
        where: { id: job.id, updatedAt: job.updatedAt },
        data: { speakers: change.speakers, rewrittenText: relabelText(job.rewrittenText, change.renames) },
      });
      if (updated.count !== 1) throw new AppError("JOB_NOT_READY", "The job changed meanwhile; try again");
      const fresh = await findOwnJob(uid, job.id);
      if (!fresh) throw new AppError("NOT_FOUND", "No such transcription");
      return toSnapshot(fresh);
    },
  );

  app.get(
    "/transcriptions",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "The user's transcriptions, newest first; `q` finds words in the file name, the transcript and the interview text (any language, also without spaces: ja, zh)",
        security: [{ bearer: [] }],
        querystring: transcriptionListQuerySchema,
        response: { 200: transcriptionListSchema, ...errorResponses(400, 401) },
      },
    },
    async (req) => {
      const uid = assertUid(req, undefined);
      const { limit, page, q } = req.query;
      // Substring match, case-insensitive: works for words of any script, with or without spaces.
      const like = q ? { contains: q, mode: "insensitive" as const } : undefined;
      const where = {
        userId: uid,
        ...(like ? { OR: [{ originalName: like }, { transcription: like }, { rewrittenText: like }] } : {}),
      };
      const [jobs, total] = await Promise.all([
        db.transcriptionJob.findMany({ where, orderBy: { createdAt: "desc" }, take: limit, skip: (page - 1) * limit }),
        db.transcriptionJob.count({ where }),
      ]);
      return { jobs: jobs.map((j) => toSnapshot(j)), total, page, pageSize: limit };
    },
  );

  app.get(
    "/audio/:jobId",
    {
      onRequest: guard,
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
        reply.header("content-range", `bytes */${size}`).header("content-type", "application/json; charset=utf-8");
        throw new AppError("RANGE_NOT_SATISFIABLE", `The range is outside the file (${size} bytes)`);
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
