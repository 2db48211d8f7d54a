import {
  charCount,
  type JobSpeaker,
  type TranscriptionListItem,
  type TranscriptionSnapshot,
  type TranscriptSegment,
} from "@kikitori/shared";
import type { Prisma } from "@kikitori/shared/db";

type JobRow = Prisma.TranscriptionJobGetPayload<Record<string, never>>;

/** The name shown for a job: its title, else the uploaded file's name. */
export const jobTitle = (job: Pick<JobRow, "title" | "originalName">) => job.title ?? job.originalName;

/** Where the job's audio is played from (GET /api/audio/{id}). */
export const audioFileUrl = (jobId: string) => `/api/audio/${jobId}`;

/** Deleted by the retention sweep, or past its retention date and about to be. */
export const isAudioExpired = (job: Pick<JobRow, "audioDeletedAt" | "audioExpiresAt">, now = new Date()) =>
  Boolean(job.audioDeletedAt) || job.audioExpiresAt <= now;

/**
 * The contract's snapshot of a job (what a client reads after a reload or reconnect). `live` are the
 * segments already sent over the socket for a job still transcribing (the job's own `segments` win
 * once the transcript is complete).
 */
export function toSnapshot(job: JobRow, now = new Date(), live: TranscriptSegment[] = []): TranscriptionSnapshot {
  const text = job.rewrittenText ?? job.transcription ?? "";
  return {
    jobId: job.id,
    status: job.status,
    transcriptionProgress: job.transcriptionProgress,
    correctionProgress: job.correctionProgress,
    transcription: job.transcription,
    rewrittenText: job.rewrittenText,
    audioFileUrl: audioFileUrl(job.id),
    audioExpiresAt: job.audioExpiresAt.toISOString(),
    audioExpired: isAudioExpired(job, now),
    transcriptionTime: job.transcriptionTime,
    correctionTime: job.correctionTime,
    characterCount: charCount(text),
    durationSeconds: job.durationSeconds,
    originalName: job.originalName,
    title: jobTitle(job),
    version: job.version,
    editedAt: job.editedAt?.toISOString() ?? null,
    model: job.model as TranscriptionSnapshot["model"],
    interviewer: job.interviewer,
    interviewee: job.interviewee,
    tone: job.tone as TranscriptionSnapshot["tone"],
    audioLanguage: job.audioLanguage,
    detectedLanguage: job.detectedLanguage,
    speakerCount: job.speakerCount,
    diarizationEngine: job.diarizationEngine,
    speakers: Array.isArray(job.speakers) ? (job.speakers as JobSpeaker[]) : [],
    transcriptionEngine: job.transcriptionEngine,
    segments: Array.isArray(job.segments) ? (job.segments as TranscriptSegment[]) : live,
    createdAt: job.createdAt.toISOString(),
    error: job.errorCode ? { code: job.errorCode, message: job.errorMessage ?? "", stage: job.failedStage } : null,
  };
}

/** The library's fields of a snapshot (GET /api/transcriptions?view=library). */
export function pickListItem(s: TranscriptionSnapshot): Omit<TranscriptionListItem, "snippet"> {
  return {
    jobId: s.jobId,
    status: s.status,
    title: s.title,
    originalName: s.originalName,
    version: s.version,
    durationSeconds: s.durationSeconds,
    audioLanguage: s.audioLanguage,
    detectedLanguage: s.detectedLanguage,
    speakers: s.speakers,
    createdAt: s.createdAt,
    editedAt: s.editedAt,
    error: s.error,
  };
}
