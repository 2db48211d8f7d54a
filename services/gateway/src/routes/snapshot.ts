import type { TranscriptionSnapshot } from "@kikitori/shared";
import type { Prisma } from "@kikitori/shared/db";

type JobRow = Prisma.TranscriptionJobGetPayload<Record<string, never>>;

/** The contract's snapshot of a job (what a client reads after a reload or reconnect). */
export function toSnapshot(job: JobRow, now = new Date()): TranscriptionSnapshot {
  const text = job.rewrittenText ?? job.transcription ?? "";
  return {
    jobId: job.id,
    status: job.status,
    transcriptionProgress: job.transcriptionProgress,
    correctionProgress: job.correctionProgress,
    transcription: job.transcription,
    rewrittenText: job.rewrittenText,
    audioFileUrl: `/api/audio/${job.id}`,
    audioExpiresAt: job.audioExpiresAt.toISOString(),
    audioExpired: Boolean(job.audioDeletedAt) || job.audioExpiresAt <= now,
    transcriptionTime: job.transcriptionTime,
    correctionTime: job.correctionTime,
    characterCount: [...text].length,
    durationSeconds: job.durationSeconds,
    originalName: job.originalName,
    model: job.model as TranscriptionSnapshot["model"],
    interviewer: job.interviewer,
    interviewee: job.interviewee,
    tone: job.tone as TranscriptionSnapshot["tone"],
    createdAt: job.createdAt.toISOString(),
    error: job.errorCode ? { code: job.errorCode, message: job.errorMessage ?? "", stage: job.failedStage } : null,
  };
}
