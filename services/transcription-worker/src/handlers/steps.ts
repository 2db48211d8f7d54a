/**
 * Where the transcription of a recording keeps its resumable steps (runStep in shared/server), so a
 * job killed halfway and run again goes on from what was done and runs no engine twice:
 * - the chunk plan (the recording cut at silences, its language and its speakers): the job's
 *   transcript_chunks rows and the plan's columns on its row (chunkPlans);
 * - each chunk's transcript: its transcript_chunks row, done once done_at is set (chunkResults).
 * The first result stored for a step stays.
 */
import { type JobNotice, jobNotices, type TranscriptSegment } from "@kikitori/shared";
import type { Db, Prisma } from "@kikitori/shared/db";
import { jobLifecycle, type StepStore } from "@kikitori/shared/server";
import type { SpeakerSpan } from "../diarization/index.ts";

/** Who speaks when in a recording, and by which engine. */
export interface Diarized {
  spans: SpeakerSpan[];
  engine: string;
}

/** The recording cut into chunks, with the language detected, the speakers heard and the job's notices. */
export interface ChunkPlan {
  chunks: Array<{
    index: number;
    startSeconds: number;
    endSeconds: number;
    objectKey: string;
    speech: Array<{ start: number; end: number }>;
  }>;
  detectedLanguage: string | null;
  diarized: Diarized | null;
  /** How the job was processed, for its page (JOB_NOTICES: a diarization or speech engine fell back). */
  notices: JobNotice[];
}

/** The one step id of a job's chunk plan. */
export const CHUNK_PLAN_STEP = "chunk-plan";

/**
 * A job's chunk plan, kept on its transcript_chunks rows and its row's plan columns: stored when the
 * job has as many chunk rows as its chunk count (and at least one). Storing locks the job's row, so
 * of two runs planning at once the first plan stays; a plan left incomplete is replaced, chunks
 * already transcribed kept.
 */
export function chunkPlans(db: Db, jobId: string): StepStore<ChunkPlan> {
  const read = async (tx: Prisma.TransactionClient | Db): Promise<ChunkPlan | undefined> => {
    const job = await tx.transcriptionJob.findUnique({
      where: { id: jobId },
      select: { chunkCount: true, detectedLanguage: true, speakerSpans: true, diarizationEngine: true, notices: true },
    });
    const rows = await tx.transcriptChunk.findMany({ where: { jobId }, orderBy: { index: "asc" } });
    if (!job || rows.length === 0 || rows.length !== job.chunkCount) return undefined;
    return {
      chunks: rows.map((c) => ({
        index: c.index,
        startSeconds: c.startSeconds,
        endSeconds: c.endSeconds,
        objectKey: c.objectKey,
        speech: Array.isArray(c.speech) ? (c.speech as Array<{ start: number; end: number }>) : [],
      })),
      detectedLanguage: job.detectedLanguage,
      diarized: job.diarizationEngine
        ? {
            spans: Array.isArray(job.speakerSpans) ? (job.speakerSpans as unknown as SpeakerSpan[]) : [],
            engine: job.diarizationEngine,
          }
        : null,
      notices: jobNotices(job.notices),
    };
  };
  return {
    get: () => read(db),
    async put(_id, plan) {
      const stored = await db.$transaction(async (tx) => {
        await tx.$queryRawUnsafe(`SELECT 1 FROM "transcription_jobs" WHERE "id" = $1::uuid FOR UPDATE`, jobId);
        const first = await read(tx);
        if (first) return first;
        await tx.transcriptChunk.deleteMany({ where: { jobId, doneAt: null } });
        await tx.transcriptChunk.createMany({
          data: plan.chunks.map((c) => ({ jobId, ...c })),
          skipDuplicates: true,
        });
        await jobLifecycle.planChunks(tx, jobId, {
          chunkCount: plan.chunks.length,
          detectedLanguage: plan.detectedLanguage,
          notices: plan.notices,
          ...(plan.diarized
            ? {
                speakerSpans: plan.diarized.spans as unknown as Prisma.InputJsonValue,
                diarizationEngine: plan.diarized.engine,
              }
            : {}),
        });
        return read(tx);
      });
      // Not stored when the job stopped transcribing meanwhile (planChunks refused): the plan as made.
      return stored ?? plan;
    },
  };
}

/** What transcribing one chunk gives: its text and timed segments, and the engine's time on it. */
export interface ChunkResult {
  text: string;
  segments: TranscriptSegment[];
  engineSeconds: number;
}

/**
 * A job's chunk results, kept on its transcript_chunks rows by index (done once done_at is set). The
 * first result stored for a chunk stays.
 */
export function chunkResults(db: Db, jobId: string): StepStore<ChunkResult, number> {
  const get = async (index: number): Promise<ChunkResult | undefined> => {
    const c = await db.transcriptChunk.findUnique({
      where: { jobId_index: { jobId, index } },
      select: { text: true, segments: true, engineSeconds: true, doneAt: true },
    });
    if (!c?.doneAt) return undefined;
    const segments = Array.isArray(c.segments) ? (c.segments as unknown as TranscriptSegment[]) : [];
    return { text: c.text ?? "", segments, engineSeconds: c.engineSeconds ?? 0 };
  };
  return {
    get,
    async put(index, result) {
      await db.transcriptChunk.updateMany({
        where: { jobId, index, doneAt: null },
        data: {
          text: result.text,
          segments: result.segments as unknown as Prisma.InputJsonValue,
          engineSeconds: result.engineSeconds,
          doneAt: new Date(),
        },
      });
      return (await get(index)) ?? result;
    },
  };
}
