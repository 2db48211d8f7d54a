/**
 * The kept versions of a job's texts (transcript_versions): before the first change the AI output is
 * kept as the "original"; each edit, restore and sync of the interview text is kept, one following
 * another of the same kind within EDIT_COALESCE_MS folding into it (an autosave every few seconds must
 * not bury the original under hundreds of versions). At most KEPT_EDITS of them are kept, and at most
 * `keptBytes` of their texts, the oldest going first (the original always stays).
 */
import { randomUUID } from "node:crypto";
import type { JobSpeaker, TranscriptSegment, VersionKind } from "@kikitori/shared";
import { type Db, Prisma } from "./db.ts";

export type JobRow = Prisma.TranscriptionJobGetPayload<Record<string, never>>;
export type VersionRow = Prisma.TranscriptVersionGetPayload<Record<string, never>>;
export type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

export const EDIT_COALESCE_MS = 5 * 60_000;
export const KEPT_EDITS = 100;
/** The texts of the kept edits and restores of one job, at most (the original is not counted). */
export const KEPT_VERSION_BYTES = 16 * 1024 * 1024;

/** The editable content of a job, as kept in a version. */
export interface VersionContent {
  title: string | null;
  transcription: string | null;
  segments: TranscriptSegment[] | null;
  rewrittenText: string | null;
  speakers: JobSpeaker[] | null;
}

const arrayOr = <T>(v: unknown): T[] | null => (Array.isArray(v) ? (v as T[]) : null);

export function contentOf(row: JobRow | VersionRow): VersionContent {
  return {
    title: row.title,
    transcription: row.transcription,
    segments: arrayOr<TranscriptSegment>(row.segments),
    rewrittenText: row.rewrittenText,
    speakers: arrayOr<JobSpeaker>(row.speakers),
  };
}

/** A JSON column's value (Prisma's DbNull for SQL NULL). */
export function jsonColumn(v: unknown[] | null): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return v === null ? Prisma.DbNull : (v as Prisma.InputJsonValue);
}

const columns = (c: VersionContent) => ({
  title: c.title,
  transcription: c.transcription,
  segments: jsonColumn(c.segments),
  rewrittenText: c.rewrittenText,
  speakers: jsonColumn(c.speakers),
});

/** Keeps `next` as version `v.version` of the job that was `before` (call in the write's transaction). */
export async function keepVersion(
  tx: Tx,
  before: JobRow,
  next: VersionContent,
  v: { version: number; kind: VersionKind; restoredFrom: number | null; at: Date },
  keptBytes = KEPT_VERSION_BYTES,
): Promise<void> {
  const latest = await tx.transcriptVersion.findFirst({ where: { jobId: before.id }, orderBy: { version: "desc" } });
  if (!latest) {
    await tx.transcriptVersion.create({
      data: {
        id: randomUUID(),
        jobId: before.id,
        version: before.version,
        kind: "original",
        ...columns(contentOf(before)),
      },
    });
  }
  // An edit folds into the edit just before it, a restore into the restore, a sync into the sync.
  const fold =
    v.kind !== "original" &&
    latest?.kind === v.kind &&
    latest.version === before.version &&
    v.at.getTime() - latest.createdAt.getTime() < EDIT_COALESCE_MS;
  if (fold && latest) {
    // Folded into the latest version: no version was added, so none can be over the limits.
    await tx.transcriptVersion.update({
      where: { id: latest.id },
      data: { version: v.version, restoredFrom: v.restoredFrom, ...columns(next) },
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
      ...columns(next),
    },
  });
  const edits = await tx.transcriptVersion.findMany({
    where: { jobId: before.id, kind: { not: "original" } },
    orderBy: { version: "desc" },
    skip: KEPT_EDITS,
    select: { id: true },
  });
  if (edits.length) await tx.transcriptVersion.deleteMany({ where: { id: { in: edits.map((e) => e.id) } } });
  await pruneByBytes(tx, before.id, keptBytes);
}

/** Drops the oldest kept versions past `keptBytes` of text (never the newest, never the original). */
async function pruneByBytes(tx: Tx, jobId: string, keptBytes: number): Promise<void> {
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
