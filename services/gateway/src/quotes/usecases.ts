import { randomUUID } from "node:crypto";
import {
  AppError,
  type CreateQuote,
  type ExportQuote,
  isUuid,
  type JobSpeaker,
  jobTextLanguage,
  type PatchQuote,
  QUOTES_PER_JOB_MAX,
  type Quote,
  quoteSpan,
  speakerNameOf,
  type TranscriptSegment,
} from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { fill, speakerLabels } from "@kikitori/shared/server";
import { type JobRow, ownJob } from "../jobs/repository.ts";
import { deleteQuote, insertQuoteWithin, type QuoteRow, quoteOfJob, quotesOfJob, updateQuote } from "./repository.ts";

export interface QuoteServiceDeps {
  db: Db;
  maxPerJob?: number;
}

export type QuoteService = ReturnType<typeof createQuoteService>;

/** A range may end this much past the recording's length (rounding of the decoder's duration). */
const END_SLACK_SECONDS = 0.5;

const noQuote = () => new AppError("NOT_FOUND", "No such quote");

/** What a job's quotes are cut from: its segments, its text language and how its speakers are named. */
function quoteContext(job: JobRow) {
  const segments = Array.isArray(job.segments) ? (job.segments as TranscriptSegment[]) : [];
  const speakers = Array.isArray(job.speakers) ? (job.speakers as JobSpeaker[]) : [];
  const labels = speakerLabels(job.language);
  const language = jobTextLanguage(job);
  /** The range's current text and the name its speaker has in the exports. */
  const cut = (start: number, end: number) => {
    const span = quoteSpan(segments, start, end, language);
    return { text: span.text, speaker: speakerNameOf(speakers, (n) => fill(labels.other, { n }), span.speaker) };
  };
  return { segments, language, cut };
}

/**
 * A stored quote as the API shows it: the text and speaker cut again from the job's current segments
 * (a quote follows the edits of its words), `stale` with the saved text when those words changed.
 */
function toQuote(row: QuoteRow, cut: ReturnType<typeof quoteContext>["cut"]): Quote {
  const now = cut(row.startSeconds, row.endSeconds);
  const stale = now.text !== row.text;
  return {
    id: row.id,
    start: row.startSeconds,
    end: row.endSeconds,
    speaker: now.speaker,
    text: now.text,
    note: row.note,
    tags: row.tags,
    stale,
    savedText: stale ? row.text : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Quotes of a job, the owner's only (another user's job or quote is 404): saved from a time range,
 * listed in the order of the recording, noted and tagged, accepted after an edit, deleted, exported.
 */
export function createQuoteService(deps: QuoteServiceDeps) {
  const { db } = deps;
  const maxPerJob = deps.maxPerJob ?? QUOTES_PER_JOB_MAX;

  /** The user's job with a timed transcript to quote from, and its quote context. */
  async function quotable(uid: string, jobId: string) {
    const job = await ownJob(db, uid, jobId);
    const ctx = quoteContext(job);
    if (job.transcription === null || ctx.segments.length === 0) {
      throw new AppError(
        "JOB_NOT_READY",
        "Quotes are taken from the timed transcript, which this job does not have yet",
      );
    }
    return { job, ...ctx };
  }

  return {
    async create(uid: string, jobId: string, input: CreateQuote): Promise<Quote> {
      const { job, segments, cut } = await quotable(uid, jobId);
      const length = segments.reduce((max, s) => Math.max(max, s.end), job.durationSeconds);
      if (input.end > length + END_SLACK_SECONDS) {
        throw new AppError("VALIDATION_FAILED", `The quote ends after the recording (${length.toFixed(1)} s)`, {
          details: { field: "end", max: length },
        });
      }
      const now = cut(input.start, input.end);
      if (!now.text) throw new AppError("VALIDATION_FAILED", "Nothing is said in this time range");
      const row = await insertQuoteWithin(
        db,
        {
          id: randomUUID(),
          jobId: job.id,
          userId: uid,
          startSeconds: input.start,
          endSeconds: input.end,
          text: now.text,
          speaker: now.speaker,
          note: input.note?.trim() || null,
          tags: input.tags ?? [],
        },
        maxPerJob,
      );
      if (!row) {
        throw new AppError("QUOTE_LIMIT_REACHED", `A transcription keeps at most ${maxPerJob} quotes`, {
          details: { max: maxPerJob },
        });
      }
      return toQuote(row, cut);
    },

    async list(uid: string, jobId: string): Promise<Quote[]> {
      const job = await ownJob(db, uid, jobId);
      const { cut } = quoteContext(job);
      return (await quotesOfJob(db, job.id)).map((row) => toQuote(row, cut));
    },

    async update(uid: string, jobId: string, quoteId: string, patch: PatchQuote): Promise<Quote> {
      const job = await ownJob(db, uid, jobId);
      const { cut } = quoteContext(job);
      if (!isUuid(quoteId)) throw noQuote();
      const data: Parameters<typeof updateQuote>[3] = {};
      if (patch.note !== undefined) data.note = patch.note?.trim() || null;
      if (patch.tags !== undefined) data.tags = patch.tags;
      if (patch.accept) {
        const row = await quoteOfJob(db, job.id, quoteId);
        if (!row) throw noQuote();
        Object.assign(data, cut(row.startSeconds, row.endSeconds));
      }
      const row = await updateQuote(db, job.id, quoteId, data);
      if (!row) throw noQuote();
      return toQuote(row, cut);
    },

    async remove(uid: string, jobId: string, quoteId: string): Promise<void> {
      const job = await ownJob(db, uid, jobId);
      if (!isUuid(quoteId) || !(await deleteQuote(db, job.id, quoteId))) throw noQuote();
    },

    /** The job's quotes as the exports show them: current text and speaker name, note, tags. */
    async forExport(job: JobRow): Promise<ExportQuote[]> {
      const { cut } = quoteContext(job);
      return (await quotesOfJob(db, job.id)).map((row) => {
        const q = toQuote(row, cut);
        return { start: q.start, speaker: q.speaker, text: q.text, note: q.note, tags: q.tags };
      });
    },
  };
}
