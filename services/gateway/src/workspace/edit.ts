/**
 * Editing a finished job and its kept versions (PATCH /api/transcriptions/{jobId}, the speaker rename,
 * restore). Every write names the job version it was based on; the row is updated only while it still
 * has that version (a compare-and-set in one UPDATE), so two tabs never silently overwrite each other:
 * the later write gets 409 VERSION_CONFLICT with the current version.
 *
 * Versions: before the first edit the AI output is kept as the "original"; each edit is kept, edits
 * following each other within EDIT_COALESCE_MS fold into one version (an autosave every few seconds
 * must not bury the original under hundreds of versions), and so do restores following each other.
 * At most KEPT_EDITS edits and restores are kept, and at most KEPT_VERSION_BYTES of their texts, the
 * oldest going first (the original always stays). Writes per job are limited to
 * WRITES_PER_JOB_PER_MINUTE (429 with Retry-After), so a script cannot churn the store.
 */
import { randomUUID } from "node:crypto";
import {
  AppError,
  applySpeakerRename,
  charCount,
  type JobSpeaker,
  jobTextLanguage,
  type PatchTranscription,
  relabelText,
  segmentsText,
  type TranscriptSegment,
  type TranscriptVersionSummary,
  type VersionKind,
} from "@kikitori/shared";
import { type Db, Prisma } from "@kikitori/shared/db";
import { jobLifecycle, type Redis } from "@kikitori/shared/server";

export type JobRow = Prisma.TranscriptionJobGetPayload<Record<string, never>>;
type VersionRow = Prisma.TranscriptVersionGetPayload<Record<string, never>>;
type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

export const EDIT_COALESCE_MS = 5 * 60_000;
export const KEPT_EDITS = 100;
/** The texts of the kept edits and restores of one job, at most (the original is not counted). */
export const KEPT_VERSION_BYTES = 16 * 1024 * 1024;
/**
 * Edits and restores of one job per minute. The editor saves at most about once a second while
 * someone types, so two tabs typing at once stay under it; a script churning versions does not.
 */
export const WRITES_PER_JOB_PER_MINUTE = 120;

export interface WorkspaceDeps {
  db: Db;
  now?: () => Date;
  /** Counts writes per job (shared by every gateway); without it writes are not limited. */
  redis?: Redis;
  redisPrefix?: string;
  limits?: { keptVersionBytes?: number; writesPerJobPerMinute?: number };
}

/** The editable content of a job, as kept in a version. */
interface Content {
  title: string | null;
  transcription: string | null;
  segments: TranscriptSegment[] | null;
  rewrittenText: string | null;
  speakers: JobSpeaker[] | null;
}

const arrayOr = <T>(v: unknown): T[] | null => (Array.isArray(v) ? (v as T[]) : null);

function contentOf(row: JobRow | VersionRow): Content {
  return {
    title: row.title,
    transcription: row.transcription,
    segments: arrayOr<TranscriptSegment>(row.segments),
    rewrittenText: row.rewrittenText,
    speakers: arrayOr<JobSpeaker>(row.speakers),
  };
}

/** A JSON column's value (Prisma's DbNull for SQL NULL). */
function json(v: unknown[] | null): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return v === null ? Prisma.DbNull : (v as Prisma.InputJsonValue);
}

function conflict(current: number): AppError {
  return new AppError(
    "VERSION_CONFLICT",
    `The transcription was changed elsewhere meanwhile (it is now at version ${current}); reload it before editing`,
    { details: { version: current } },
  );
}

export function createWorkspace(deps: WorkspaceDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const keptBytes = deps.limits?.keptVersionBytes ?? KEPT_VERSION_BYTES;
  const writesPerMinute = deps.limits?.writesPerJobPerMinute ?? WRITES_PER_JOB_PER_MINUTE;

  /** A fixed one-minute window per job, in Redis: past the limit, 429 with the seconds to wait. */
  async function limitWrites(jobId: string): Promise<void> {
    if (!deps.redis) return;
    const key = `${deps.redisPrefix ?? "kikitori"}:rl:job-write:${jobId}`;
    const [[, count], , [, ttl]] = (await deps.redis.multi().incr(key).expire(key, 60, "NX").ttl(key).exec()) as [
      [Error | null, number],
      [Error | null, number],
      [Error | null, number],
    ];
    if (count > writesPerMinute) {
      throw new AppError("RATE_LIMITED", "Too many changes to this transcription. Please wait a moment.", {
        details: { retryAfterSeconds: Math.max(ttl, 1) },
      });
    }
  }

  /** Writes `next` as version job.version + 1 if the row is still at job.version; keeps the versions. */
  async function write(job: JobRow, next: Content, kind: VersionKind, restoredFrom: number | null): Promise<JobRow> {
    const at = now();
    const version = job.version + 1;
    return db.$transaction(async (tx) => {
      const updated = await jobLifecycle.edit(tx, job.id, job.version, {
        title: next.title,
        transcription: next.transcription,
        segments: json(next.segments),
        rewrittenText: next.rewrittenText,
        speakers: json(next.speakers),
        at,
      });
      if (!updated) {
        const current = await tx.transcriptionJob.findUnique({ where: { id: job.id }, select: { version: true } });
        if (!current) throw new AppError("NOT_FOUND", "No such transcription");
        throw conflict(current.version);
      }
      await keepVersion(tx, job, next, { version, kind, restoredFrom, at });
      return tx.transcriptionJob.findUniqueOrThrow({ where: { id: job.id } });
    });
  }

  async function keepVersion(
    tx: Tx,
    before: JobRow,
    next: Content,
    v: { version: number; kind: VersionKind; restoredFrom: number | null; at: Date },
  ): Promise<void> {
    const latest = await tx.transcriptVersion.findFirst({ where: { jobId: before.id }, orderBy: { version: "desc" } });
    const data = (c: Content) => ({
      title: c.title,
      transcription: c.transcription,
      segments: json(c.segments),
      rewrittenText: c.rewrittenText,
      speakers: json(c.speakers),
    });
    if (!latest) {
      await tx.transcriptVersion.create({
        data: {
          id: randomUUID(),
          jobId: before.id,
          version: before.version,
          kind: "original",
          ...data(contentOf(before)),
        },
      });
    }
    // An edit folds into the edit just before it, a restore into the restore just before it.
    const fold =
      v.kind !== "original" &&
      latest?.kind === v.kind &&
      latest.version === before.version &&
      v.at.getTime() - latest.createdAt.getTime() < EDIT_COALESCE_MS;
    if (fold && latest) {
      // Folded into the latest version: no version was added, so none can be over the limits.
      await tx.transcriptVersion.update({
        where: { id: latest.id },
        data: { version: v.version, restoredFrom: v.restoredFrom, ...data(next) },
      });
      return;
    }
    await tx.transcriptVersion.create({
      data: {
        id: randomUUID(),
        jobId: before.id,
        version: v.version,
        kind: v.kind,
        restoredFrom: v.restoredFrom,
        ...data(next),
      },
    });
    const edits = await tx.transcriptVersion.findMany({
      where: { jobId: before.id, kind: { not: "original" } },
      orderBy: { version: "desc" },
      skip: KEPT_EDITS,
      select: { id: true },
    });
    if (edits.length) await tx.transcriptVersion.deleteMany({ where: { id: { in: edits.map((e) => e.id) } } });
    await pruneByBytes(tx, before.id);
  }

  /** Drops the oldest edits and restores past KEPT_VERSION_BYTES of text (never the newest, never the original). */
  async function pruneByBytes(tx: Tx, jobId: string): Promise<void> {
    const rows = await tx.$queryRaw<Array<{ id: string; bytes: bigint | number }>>`
      SELECT id,
             coalesce(octet_length(title), 0) + coalesce(octet_length(transcription), 0)
               + coalesce(octet_length(rewritten_text), 0) + coalesce(octet_length(segments::text), 0)
               + coalesce(octet_length(speakers::text), 0) AS bytes
        FROM transcript_versions
       WHERE job_id = ${jobId}::uuid AND kind <> 'original'
       ORDER BY version DESC`;
    let total = 0;
    const drop: string[] = [];
    rows.forEach((r, i) => {
      total += Number(r.bytes);
      if (i > 0 && total > keptBytes) drop.push(r.id);
    });
    if (drop.length) await tx.transcriptVersion.deleteMany({ where: { id: { in: drop } } });
  }

  return {
    /** Applies a PATCH (title, speaker names, segment texts, interview text) based on `body.version`. */
    async edit(job: JobRow, body: PatchTranscription): Promise<JobRow> {
      await limitWrites(job.id);
      if (body.version !== job.version) throw conflict(job.version);
      const next = contentOf(job);
      if (body.title !== undefined) next.title = body.title ? body.title : null;
      const textEdit = body.segments !== undefined || body.rewrittenText !== undefined || body.speakers !== undefined;
      if (textEdit && job.status !== "completed") {
        throw new AppError("JOB_NOT_READY", "The texts can be edited once the job is complete");
      }
      if (body.segments?.length) {
        if (!next.segments) throw new AppError("VALIDATION_FAILED", "This job has no timed segments to edit");
        const segments = next.segments.map((s) => ({ ...s }));
        for (const change of body.segments) {
          const seg = segments[change.index];
          if (!seg)
            throw new AppError("VALIDATION_FAILED", `No segment ${change.index} (the job has ${segments.length})`);
          if (seg.text !== change.text) {
            seg.text = change.text;
            // Word times no longer match edited text.
            delete seg.words;
          }
          if (change.speaker !== undefined) seg.speaker = change.speaker;
        }
        next.segments = segments;
        next.transcription = segmentsText(segments, jobTextLanguage(job));
      }
      if (body.rewrittenText !== undefined) next.rewrittenText = body.rewrittenText;
      if (body.speakers) {
        if (!next.speakers?.length || next.rewrittenText === null) {
          throw new AppError("JOB_NOT_READY", "The speakers are named once the interview text is written");
        }
        let change: ReturnType<typeof applySpeakerRename>;
        try {
          change = applySpeakerRename(next.speakers, body.speakers);
        } catch (err) {
          throw new AppError("VALIDATION_FAILED", (err as Error).message);
        }
        next.speakers = change.speakers;
        next.rewrittenText = relabelText(next.rewrittenText, change.renames);
      }
      return write(job, next, "edit", null);
    },

    /** Brings back a kept version's texts and speakers as a new version (based on `baseVersion`). */
    async restore(job: JobRow, version: number, baseVersion: number): Promise<JobRow> {
      await limitWrites(job.id);
      if (baseVersion !== job.version) throw conflict(job.version);
      if (job.status !== "completed")
        throw new AppError("JOB_NOT_READY", "The texts can be edited once the job is complete");
      const row = await db.transcriptVersion.findUnique({ where: { jobId_version: { jobId: job.id, version } } });
      if (!row) throw new AppError("NOT_FOUND", `No version ${version} of this transcription`);
      if (version === job.version) return job;
      // The texts and speakers come back; the title is the job's name, not part of its texts.
      return write(job, { ...contentOf(row), title: job.title }, "restore", version);
    },

    /** The kept versions, newest first; a job never edited has its AI output as the one original. */
    async versions(job: JobRow): Promise<TranscriptVersionSummary[]> {
      const rows = await db.transcriptVersion.findMany({ where: { jobId: job.id }, orderBy: { version: "desc" } });
      if (rows.length === 0) return [summaryOf(job, job, "original", null, job.createdAt, job.updatedAt)];
      return rows.map((r) => summaryOf(job, r, r.kind as VersionKind, r.restoredFrom, r.createdAt, r.updatedAt));
    },

    /** One kept version with its texts (the job itself for a job never edited). */
    async version(job: JobRow, version: number) {
      const row = await db.transcriptVersion.findUnique({ where: { jobId_version: { jobId: job.id, version } } });
      const source = row ?? (version === job.version ? job : null);
      if (!source) throw new AppError("NOT_FOUND", `No version ${version} of this transcription`);
      const c = contentOf(source);
      return {
        ...summaryOf(
          job,
          source,
          row ? (row.kind as VersionKind) : "original",
          row?.restoredFrom ?? null,
          source.createdAt,
          source.updatedAt,
        ),
        transcription: c.transcription,
        rewrittenText: c.rewrittenText,
        segments: c.segments ?? [],
        speakers: c.speakers ?? [],
      };
    },
  };
}

function summaryOf(
  job: JobRow,
  source: JobRow | VersionRow,
  kind: VersionKind,
  restoredFrom: number | null,
  createdAt: Date,
  updatedAt: Date,
): TranscriptVersionSummary {
  const version = "jobId" in source ? source.version : job.version;
  return {
    version,
    kind,
    restoredFrom,
    current: version === job.version,
    title: source.title ?? job.originalName,
    characterCount: charCount(source.rewrittenText ?? source.transcription ?? ""),
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

export type Workspace = ReturnType<typeof createWorkspace>;
