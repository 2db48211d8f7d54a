// The quotes' rows (transcript_quotes), below the quote use cases. The job a quote belongs to is read
// by the use cases (ownJob); jobs themselves are written only by the job lifecycle module.
import type { Db } from "@kikitori/shared/db";

/** A quote's columns as the use cases read them. */
export interface QuoteRow {
  id: string;
  jobId: string;
  startSeconds: number;
  endSeconds: number;
  text: string;
  speaker: string | null;
  note: string | null;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
}

const columns = {
  id: true,
  jobId: true,
  startSeconds: true,
  endSeconds: true,
  text: true,
  speaker: true,
  note: true,
  tags: true,
  createdAt: true,
  updatedAt: true,
} as const;

/**
 * Adds a quote unless the job already has `max`: counted and inserted under a per-job advisory lock,
 * so parallel requests cannot pass the limit. Null when the limit is reached.
 */
export function insertQuoteWithin(
  db: Db,
  row: Omit<QuoteRow, "createdAt" | "updatedAt"> & { userId: string },
  max: number,
): Promise<QuoteRow | null> {
  return db.$transaction(async (tx) => {
    await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))::text AS "locked"`, `quote:${row.jobId}`);
    if ((await tx.transcriptQuote.count({ where: { jobId: row.jobId } })) >= max) return null;
    return tx.transcriptQuote.create({ data: row, select: columns });
  });
}

/** The job's quotes in the order of the recording (saved order where two start together). */
export function quotesOfJob(db: Db, jobId: string): Promise<QuoteRow[]> {
  return db.transcriptQuote.findMany({
    where: { jobId },
    orderBy: [{ startSeconds: "asc" }, { createdAt: "asc" }],
    select: columns,
  });
}

/** Changes a quote of the job; null when the job has no such quote. */
export async function updateQuote(
  db: Db,
  jobId: string,
  quoteId: string,
  data: { note?: string | null; tags?: string[]; text?: string; speaker?: string | null },
): Promise<QuoteRow | null> {
  const { count } = await db.transcriptQuote.updateMany({ where: { id: quoteId, jobId }, data });
  if (count === 0) return null;
  return db.transcriptQuote.findFirst({ where: { id: quoteId, jobId }, select: columns });
}

/** The quote of the job, or null. */
export function quoteOfJob(db: Db, jobId: string, quoteId: string): Promise<QuoteRow | null> {
  return db.transcriptQuote.findFirst({ where: { id: quoteId, jobId }, select: columns });
}

/** Deletes a quote of the job; false when the job has no such quote. */
export async function deleteQuote(db: Db, jobId: string, quoteId: string): Promise<boolean> {
  return (await db.transcriptQuote.deleteMany({ where: { id: quoteId, jobId } })).count > 0;
}
