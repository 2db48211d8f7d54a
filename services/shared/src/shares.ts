/**
 * Read-only share links of a transcription: the owner makes a link (POST /api/transcriptions/{id}/shares),
 * lists and revokes them; anyone holding the link reads the job's snapshot without logging in
 * (GET /api/shared/{token}), and plays its audio through a short-lived signed URL when the link
 * includes it. The token grants nothing else.
 */
import { z } from "zod";
import { SUPPORTED_LANGUAGES } from "./languages.ts";
import { jobSpeakerSchema, transcriptSegmentSchema } from "./speech.ts";

/** How long a new link may live, in days. */
export const SHARE_DAYS_MIN = 1;
export const SHARE_DAYS_MAX = 90;
/** The lifetimes the job page offers. */
export const SHARE_DAY_CHOICES = [1, 7, 30, 90] as const;
/** Links of one job that may be live (neither expired nor revoked) at once. */
export const SHARES_PER_JOB_MAX = 20;
/** A share token: 32 random bytes, base64url (43 characters). */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** POST /api/transcriptions/{jobId}/shares */
export const createShareSchema = z.object({
  expiresInDays: z.number().int().min(SHARE_DAYS_MIN).max(SHARE_DAYS_MAX),
  includeAudio: z.boolean().default(false),
  /** The interface language of the link's page (default: the uploader's). */
  language: z.enum(SUPPORTED_LANGUAGES).optional(),
});
export type CreateShare = z.infer<typeof createShareSchema>;
export type CreateShareInput = z.input<typeof createShareSchema>;

/** A live link as its owner lists it (the token itself is shown once, when it is made). */
export const shareSchema = z.object({
  id: z.string(),
  includeAudio: z.boolean(),
  expiresAt: z.string(),
  createdAt: z.string(),
  /** When someone last opened the link (null: never). */
  lastOpenedAt: z.string().nullable(),
});
export type Share = z.infer<typeof shareSchema>;

/** 201 of POST …/shares: the link with its token and absolute URL (only here: only a hash is stored). */
export const createdShareSchema = shareSchema.extend({
  token: z.string(),
  url: z.string(),
});
export type CreatedShare = z.infer<typeof createdShareSchema>;

/** GET /api/transcriptions/{jobId}/shares: the live links, newest first. */
export const shareListSchema = z.object({ shares: z.array(shareSchema) });
export type ShareList = z.infer<typeof shareListSchema>;

/** GET /api/shared/{token}: what a link's holder reads. */
export const sharedTranscriptionSchema = z.object({
  title: z.string(),
  /** The speakers with their names and parts, as the owner named them. */
  speakers: z.array(jobSpeakerSchema),
  /** The timed transcript, in seconds of the recording. */
  segments: z.array(transcriptSegmentSchema),
  /** The plain transcript (null when the job has none). */
  transcription: z.string().nullable(),
  /** The interview text (null while it is not written). */
  rewrittenText: z.string().nullable(),
  durationSeconds: z.number(),
  /** The language spoken: the detected one, else the one asked for at upload (null: unknown). */
  language: z.string().nullable(),
  createdAt: z.string(),
  /** When the link stops working. */
  expiresAt: z.string(),
  /** A URL that plays the audio without a login for a few minutes; null when not shared or deleted. */
  audioUrl: z.string().nullable(),
  /** When `audioUrl` stops working. */
  audioUrlExpiresAt: z.string().nullable(),
});
export type SharedTranscription = z.infer<typeof sharedTranscriptionSchema>;
