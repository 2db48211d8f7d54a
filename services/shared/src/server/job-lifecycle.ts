import type { Db, Prisma } from "./db.ts";
import { type QuotaGuard, type QuotaVerdict, quotaGuardParams, quotaVerdictSql } from "./quota-guard.ts";

/**
 * The life of a transcription job, in one place: the only code that writes `transcription_jobs`.
 *
 *   queued ─startTranscription→ transcribing ─transcribed→ correcting ─completed→ completed
 *      └──────────────┴───────────── failed ←───────────────┘
 *   failed ─retry→ queued (transcript not made yet) | correcting (transcript kept)
 *
 * An upload's job is created queued with its audio pending (the recording on its way from the
 * gateway's disk to the object store, not in the queue yet): audioStored clears that, audioNotStored
 * fails it.
 *
 * Every transition names the states it may start from and checks them in the same UPDATE, so a
 * stale worker (its job failed, retried or deleted meanwhile) cannot move a job backwards; each
 * returns whether the row moved. Facts written along the way (progress, the chunk plan, speakers,
 * the quota held, audio expiry, the user's edits, the interview text's syncs) are written here too, each guarded the same way.
 * Callers publish the progress event that goes with a transition when it returns true.
 */
export type JobState = "queued" | "transcribing" | "correcting" | "completed" | "failed";

/** What may write: the client itself, or the transaction it runs in. */
type Writer = Pick<Db, "transcriptionJob" | "$executeRawUnsafe">;

/** A new job's row (the upload's fields); it starts queued, holding `reservedSeconds` of quota. */
export interface NewJobRow {
  id: string;
  userId: string;
  correlationId: string;
  audioKey: string;
  audioMime: string;
  audioFormat: string;
  audioBytes: number;
  audioStream: number;
  durationSeconds: number;
  reservedSeconds: number;
  originalName: string;
  model: string;
  interviewer: string;
  interviewee: string;
  tone: string | null;
  interviewExample: string;
  language: string;
  audioLanguage: string;
  speakerCount: number | null;
  audioExpiresAt: Date;
  glossary: string[];
}

/** Each field of a new job's row: its column and SQL type (the schema's, prisma/schema.prisma). */
const NEW_JOB_COLUMNS: { [K in keyof NewJobRow]-?: readonly [column: string, type: string] } = {
  id: ["id", "uuid"],
  userId: ["user_id", "uuid"],
  correlationId: ["correlation_id", "text"],
  audioKey: ["audio_key", "text"],
  audioMime: ["audio_mime", "text"],
  audioFormat: ["audio_format", "text"],
  audioBytes: ["audio_bytes", "int"],
  audioStream: ["audio_stream", "smallint"],
  durationSeconds: ["duration_seconds", "float8"],
  reservedSeconds: ["reserved_seconds", "int"],
  originalName: ["original_name", "text"],
  model: ["model", "text"],
  interviewer: ["interviewer", "text"],
  interviewee: ["interviewee", "text"],
  tone: ["tone", "text"],
  interviewExample: ["interview_example", "text"],
  language: ["language", "text"],
  audioLanguage: ["audio_language", "text"],
  speakerCount: ["speaker_count", "smallint"],
  audioExpiresAt: ["audio_expires_at", "timestamptz"],
  glossary: ["glossary", "jsonb"],
};
const NEW_JOB_FIELDS = Object.keys(NEW_JOB_COLUMNS) as Array<keyof NewJobRow>;

const NEW_JOB_INSERT_COLUMNS = NEW_JOB_FIELDS.map((f) => `"${NEW_JOB_COLUMNS[f][0]}"`).join(", ");
const NEW_JOB_INSERT_VALUES = NEW_JOB_FIELDS.map((f, i) => `$${i + 1}::${NEW_JOB_COLUMNS[f][1]}`).join(", ");

/**
 * The INSERT of a new job under the quota guard, in one statement: the guard's verdict (its four
 * parameters after the row's) is read once, and the row written only when it is 'ok'.
 */
const INSERT_UNDER_QUOTA = `WITH "guard" AS (SELECT ${quotaVerdictSql(NEW_JOB_FIELDS.length + 1)} AS "verdict"),
  "job" AS (
    INSERT INTO "transcription_jobs" (${NEW_JOB_INSERT_COLUMNS}, "status", "audio_pending", "updated_at")
    SELECT ${NEW_JOB_INSERT_VALUES}, 'queued', true, now()
    FROM "guard" WHERE "verdict" = 'ok'
  )
  SELECT "verdict" FROM "guard"`;

const moved = (r: { count: number }) => r.count === 1;

/** Why a job whose recording never reached the object store failed (its code: SERVICE_UNAVAILABLE). */
export const AUDIO_NOT_STORED = "The recording could not be stored; please upload it again";

export const jobLifecycle = {
  /**
   * An accepted upload, queued with its audio pending and holding `row.reservedSeconds`, written only
   * when the quota guard (quota-guard.ts, `guard.seconds`) allows it: one statement, one round trip.
   * Returns the guard's verdict (quota.ts underQuota settles it).
   */
  async createUnderQuota(db: Pick<Db, "$queryRawUnsafe">, row: NewJobRow, guard: QuotaGuard): Promise<QuotaVerdict> {
    const values = NEW_JOB_FIELDS.map((f) => (f === "glossary" ? JSON.stringify(row.glossary) : row[f]));
    const [{ verdict }] = await db.$queryRawUnsafe<Array<{ verdict: QuotaVerdict }>>(
      INSERT_UNDER_QUOTA,
      ...values,
      ...quotaGuardParams(guard),
    );
    return verdict;
  },

  /** The recording of a queued job reached the object store (it may be queued now). False: not pending (deleted, failed, stored). */
  async audioStored(db: Writer, jobId: string): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "queued", audioPending: true },
        data: { audioPending: false },
      }),
    );
  },

  /**
   * queued → failed: the recording never reached the object store. It holds no quota and has no
   * audio (a retry is refused as for expired audio: the user uploads it again).
   */
  async audioNotStored(db: Writer, jobId: string, at: Date): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "queued", audioPending: true },
        data: {
          status: "failed",
          errorCode: "SERVICE_UNAVAILABLE",
          errorMessage: AUDIO_NOT_STORED,
          failedStage: "transcription",
          reservedSeconds: 0,
          audioDeletedAt: at,
        },
      }),
    );
  },

  /** Jobs whose recording has been on its way to the store since before `before` (their gateway is gone). */
  async audioPendingSince(
    db: Pick<Db, "transcriptionJob">,
    before: Date,
  ): Promise<Array<{ id: string; audioKey: string }>> {
    return db.transcriptionJob.findMany({
      where: { audioPending: true, status: "queued", createdAt: { lt: before } },
      select: { id: true, audioKey: true },
      take: 500,
    });
  },

  /** queued → transcribing, by the engine `engine`, at the stage's first progress. */
  async startTranscription(
    db: Writer,
    jobId: string,
    f: { startedAt: Date; engine: string; progress: number },
  ): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "queued" },
        data: {
          status: "transcribing",
          transcriptionStartedAt: f.startedAt,
          transcriptionProgress: f.progress,
          transcriptionEngine: f.engine,
        },
      }),
    );
  },

  /** The transcription's progress, only ever raised. False when it was already at or above `progress`. */
  async raiseTranscriptionProgress(db: Writer, jobId: string, progress: number): Promise<boolean> {
    const n = await db.$executeRawUnsafe(
      `UPDATE "transcription_jobs" SET "transcription_progress" = $2, "updated_at" = now()
       WHERE "id" = $1::uuid AND "status" = 'transcribing' AND "transcription_progress" < $2`,
      jobId,
      progress,
    );
    return n === 1;
  },

  /** The recording cut into chunks (with the language detected and the speakers heard), while transcribing. */
  async planChunks(
    db: Writer,
    jobId: string,
    f: {
      chunkCount: number;
      detectedLanguage: string | null;
      speakerSpans?: Prisma.InputJsonValue;
      diarizationEngine?: string;
      /** Notice codes for the job page (JOB_NOTICES), e.g. when diarization fell back to the classic engine. */
      notices?: string[];
    },
  ): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "transcribing" },
        data: f,
      }),
    );
  },

  /** transcribing → correcting with the transcript (written once: a re-run finds it there). */
  async transcribed(
    db: Writer,
    jobId: string,
    f: { transcription: string; segments: Prisma.InputJsonValue; transcriptionTime: number; doneAt: Date },
  ): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "transcribing", transcription: null },
        data: {
          status: "correcting",
          transcription: f.transcription,
          segments: f.segments,
          transcriptionTime: f.transcriptionTime,
          transcriptionDoneAt: f.doneAt,
          transcriptionProgress: 100,
        },
      }),
    );
  },

  /** The correction's start (once per job), by `engine`. */
  async startCorrection(db: Writer, jobId: string, f: { startedAt: Date; engine: string }): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "correcting", correctionStartedAt: null },
        data: { correctionStartedAt: f.startedAt, correctionProgress: 0, correctionEngine: f.engine },
      }),
    );
  },

  /** The speakers named for the interview text, while it is being written. */
  async nameSpeakers(db: Writer, jobId: string, speakers: Prisma.InputJsonValue): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({ where: { id: jobId, status: "correcting" }, data: { speakers } }),
    );
  },

  /** The correction's progress, while correcting. */
  async correctionProgress(db: Writer, jobId: string, progress: number): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "correcting" },
        data: { correctionProgress: progress },
      }),
    );
  },

  /** correcting → completed with the interview text (written once). */
  async completed(
    db: Writer,
    jobId: string,
    f: { rewrittenText: string; correctionTime: number; doneAt: Date },
  ): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "correcting", rewrittenText: null },
        data: {
          status: "completed",
          rewrittenText: f.rewrittenText,
          correctionTime: f.correctionTime,
          correctionDoneAt: f.doneAt,
          correctionProgress: 100,
          errorCode: null,
          errorMessage: null,
          failedStage: null,
        },
      }),
    );
  },

  /**
   * One of `from` → failed at `stage`, keeping any transcript made. A failed job holds none of its
   * owner's quota (a retry holds it again). False when it was not in one of `from` (reported once).
   */
  async failed(
    db: Writer,
    jobId: string,
    from: JobState[],
    f: { code: string; message: string; stage: "transcription" | "correction" },
  ): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: { in: from } },
        data: {
          status: "failed",
          errorCode: f.code,
          errorMessage: f.message,
          failedStage: f.stage,
          reservedSeconds: 0,
        },
      }),
    );
  },

  /** A failed job holds `seconds` of quota again before it is retried (call inside the quota's lock). */
  async holdForRetry(db: Writer, jobId: string, seconds: number): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "failed" },
        data: { reservedSeconds: seconds },
      }),
    );
  },

  /** failed → queued (from the chunks already done) or → correcting (the transcript kept). */
  async retry(db: Writer, jobId: string, atCorrection: boolean): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, status: "failed" },
        data: {
          status: atCorrection ? "correcting" : "queued",
          errorCode: null,
          errorMessage: null,
          failedStage: null,
          ...(atCorrection ? { correctionStartedAt: null, correctionProgress: 0 } : {}),
        },
      }),
    );
  },

  /** Gives back what a job held of its owner's quota (it was charged, or will not run). */
  async releaseQuota(db: Pick<Db, "$executeRawUnsafe">, jobId: string): Promise<void> {
    await db.$executeRawUnsafe(
      `UPDATE "transcription_jobs" SET "reserved_seconds" = 0 WHERE "id" = $1::uuid AND "reserved_seconds" > 0`,
      jobId,
    );
  },

  /** The job's audio deleted (retention, or the user's data removed): the player shows it expired. */
  async audioDeleted(db: Writer, where: { jobId: string } | { userId: string }, at: Date): Promise<number> {
    const r = await db.transcriptionJob.updateMany({
      where: { ...("jobId" in where ? { id: where.jobId } : { userId: where.userId }), audioDeletedAt: null },
      data: { audioDeletedAt: at },
    });
    return r.count;
  },

  /**
   * The user's edit: the texts, speakers and title as version `version`, only while the row is still
   * at `baseVersion` (a write based on an older version is refused: false).
   */
  async edit(
    db: Writer,
    jobId: string,
    baseVersion: number,
    f: {
      title: string | null;
      transcription: string | null;
      segments: Prisma.TranscriptionJobUpdateManyMutationInput["segments"];
      rewrittenText: string | null;
      speakers: Prisma.TranscriptionJobUpdateManyMutationInput["speakers"];
      /** How the interview text follows the transcript after this edit (unchanged when absent). */
      interviewSync?: Prisma.TranscriptionJobUpdateManyMutationInput["interviewSync"];
      at: Date;
    },
  ): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, version: baseVersion },
        data: {
          title: f.title,
          transcription: f.transcription,
          segments: f.segments,
          rewrittenText: f.rewrittenText,
          speakers: f.speakers,
          ...(f.interviewSync !== undefined ? { interviewSync: f.interviewSync } : {}),
          version: baseVersion + 1,
          editedAt: f.at,
        },
      }),
    );
  },

  /**
   * The interview text brought up to the edited transcript (a version of its own, not the user's
   * edit: editedAt stays), if the job is still complete and at `baseVersion`.
   */
  async synced(
    db: Writer,
    jobId: string,
    baseVersion: number,
    f: { rewrittenText: string; interviewSync: Prisma.InputJsonValue },
  ): Promise<boolean> {
    return moved(
      await db.transcriptionJob.updateMany({
        where: { id: jobId, version: baseVersion, status: "completed" },
        data: { rewrittenText: f.rewrittenText, interviewSync: f.interviewSync, version: baseVersion + 1 },
      }),
    );
  },

  /** The job gone (its chunks, sections and versions with it); a worker still on it then finds nothing. */
  async remove(db: Writer, jobId: string): Promise<boolean> {
    return moved(await db.transcriptionJob.deleteMany({ where: { id: jobId } }));
  },
};
