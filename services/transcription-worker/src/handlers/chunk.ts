import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { transcriptionChunkJobSchema } from "@kikitori/shared";
import { parseJobPayload } from "@kikitori/shared/server";
import type { Job } from "bullmq";
import type { TranscriptionEngine } from "../engines/index.ts";
import { chunkProgress, type TranscriptionDeps } from "./transcribe.ts";

export interface ChunkDeps extends Pick<TranscriptionDeps, "db" | "store" | "publish" | "logger" | "tmpDir"> {
  engine: TranscriptionEngine;
  /** Seconds of engine time per chunk, for the engine-time-per-audio-second metric. */
  observeEngine?: (engineSeconds: number, audioSeconds: number) => void;
}

/**
 * One chunk (QUEUES.transcriptionChunk): fetch its WAV, run the engine, store the text. A chunk that
 * is already done is not transcribed again. Then the job's progress rises with the share of chunks done.
 */
export async function processChunk(deps: ChunkDeps, job: Job): Promise<{ index: number; chars: number }> {
  const p = parseJobPayload(transcriptionChunkJobSchema, job.data);
  const chunk = await deps.db.transcriptChunk.findUnique({
    where: { jobId_index: { jobId: p.jobId, index: p.index } },
  });
  if (!chunk) return { index: p.index, chars: 0 };
  if (!chunk.doneAt) {
    const row = await deps.db.transcriptionJob.findUnique({
      where: { id: p.jobId },
      select: { language: true, model: true, interviewer: true, interviewee: true, status: true },
    });
    if (!row || row.status === "failed") return { index: p.index, chars: 0 };
    const dir = await mkdtemp(path.join(deps.tmpDir, "kikitori-chunk-"));
    try {
      const wav = path.join(dir, "chunk.wav");
      await pipeline(await deps.store.get(chunk.objectKey), createWriteStream(wav));
      const t0 = process.hrtime.bigint();
      const names = [row.interviewer, row.interviewee].filter(Boolean).join(", ");
      const text = await deps.engine.transcribe(wav, {
        language: row.language,
        fileType: row.model,
        prompt: names ? `Speakers: ${names}.` : undefined,
      });
      const engineSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      deps.observeEngine?.(engineSeconds, chunk.endSeconds - chunk.startSeconds);
      await deps.db.transcriptChunk.updateMany({
        where: { jobId: p.jobId, index: p.index, doneAt: null },
        data: { text, engineSeconds, doneAt: new Date() },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const [done, total] = await Promise.all([
    deps.db.transcriptChunk.count({ where: { jobId: p.jobId, doneAt: { not: null } } }),
    deps.db.transcriptChunk.count({ where: { jobId: p.jobId } }),
  ]);
  const progress = chunkProgress(done, total);
  // Progress only rises, whatever order the chunks finish in.
  const updated = await deps.db.$executeRawUnsafe(
    `UPDATE "transcription_jobs" SET "transcription_progress" = $2, "updated_at" = now()
     WHERE "id" = $1::uuid AND "transcription_progress" < $2 AND "status" = 'transcribing'`,
    p.jobId,
    progress,
  );
  if (updated === 1) {
    await deps.publish({
      userId: p.userId,
      correlationId: p.correlationId,
      event: { jobId: p.jobId, status: "Transcription in progress", transcriptionProgress: progress },
    });
  }
  return { index: p.index, chars: chunk.text?.length ?? 0 };
}
