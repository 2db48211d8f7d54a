import {
  charCount,
  glossaryOf,
  type JobSpeaker,
  jobNotices,
  readSync,
  syncSummary,
  type TranscriptionListItem,
  type TranscriptionSnapshot,
  type TranscriptSegment,
} from "@kikitori/shared";
import type { JobRow } from "@kikitori/shared/server";
import { audioFileUrl } from "../lib/paths.ts";

/** The name shown for a job: its title, else the uploaded file's name. */
export const jobTitle = (job: Pick<JobRow, "title" | "originalName">) => job.title ?? job.originalName;

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
    ...listFields(job),
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
    model: job.model as TranscriptionSnapshot["model"],
    interviewer: job.interviewer,
    interviewee: job.interviewee,
    tone: job.tone as TranscriptionSnapshot["tone"],
    speakerCount: job.speakerCount,
    diarizationEngine: job.diarizationEngine,
    notices: jobNotices(job.notices),
    transcriptionEngine: job.transcriptionEngine,
    glossary: glossaryOf(job.glossary),
    segments: Array.isArray(job.segments) ? (job.segments as TranscriptSegment[]) : live,
    ...syncSummary(readSync(job.interviewSync)),
  };
}

/**
 * A job as the library lists it (GET /api/transcriptions?view=library): the fields it shows, read
 * straight from the row (no texts, no character count), and the passage a search found.
 */
export function toListItem(job: JobRow, snippet: string | null): TranscriptionListItem {
  return { ...listFields(job), snippet };
}

/** The fields a snapshot and a library item share. */
function listFields(job: JobRow): Omit<TranscriptionListItem, "snippet"> {
  return {
    jobId: job.id,
    status: job.status,
    title: jobTitle(job),
    originalName: job.originalName,
    version: job.version,
    durationSeconds: job.durationSeconds,
    audioLanguage: job.audioLanguage,
    detectedLanguage: job.detectedLanguage,
    speakers: Array.isArray(job.speakers) ? (job.speakers as JobSpeaker[]) : [],
    createdAt: job.createdAt.toISOString(),
    editedAt: job.editedAt?.toISOString() ?? null,
    error: job.errorCode ? { code: job.errorCode, message: job.errorMessage ?? "", stage: job.failedStage } : null,
  };
}
