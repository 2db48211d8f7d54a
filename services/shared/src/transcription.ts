import { z } from "zod";
import { glossaryFieldSchema } from "./glossary.ts";
import { INTERVIEW_SYNC_STATES, syncConflictSchema } from "./interview-sync.ts";
import {
  AUTO_LANGUAGE,
  audioLanguageSchema,
  jobSpeakerSchema,
  speakerCountSchema,
  transcriptSegmentSchema,
} from "./speech.ts";

/** Largest accepted upload: 20 MiB (the gateway's multipart limit). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
export const INTERVIEW_EXAMPLE_MAX = 300;
export const NAME_MAX = 100;

/** File types (wire values) in menu order; `meeting` is the API default (the web form opens on `general`). */
export const FILE_TYPES = [
  "meeting",
  "general",
  "phonecall",
  "voicemail",
  "finance",
  "conversationalai",
  "video",
  "medical",
] as const;
export const fileTypeSchema = z.enum(FILE_TYPES);
export type FileType = z.infer<typeof fileTypeSchema>;

export const TONES = ["formal", "casual", "pop", "serious"] as const;
export const toneSchema = z.enum(TONES);
export type Tone = z.infer<typeof toneSchema>;

/**
 * The containers an upload is recognised as, from its bytes: m4a is the MP4/QuickTime family (phone
 * recordings, .mp4/.mov video), webm the Matroska family (what browsers and many recorders write:
 * Opus or Vorbis in WebM, .mkv/.mka). Only the audio of a video is used.
 */
export const AUDIO_FORMATS = ["mp3", "wav", "ogg", "flac", "aac", "m4a", "webm"] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/** File name extensions of recordings the upload takes (the bytes decide; these only guide the picker). */
export const UPLOAD_EXTENSIONS = [
  "mp3",
  "wav",
  "ogg",
  "oga",
  "opus",
  "flac",
  "aac",
  "m4a",
  "mp4",
  "m4v",
  "mov",
  "3gp",
  "webm",
  "mkv",
  "mka",
] as const;

/** The text fields of POST /api/upload (multipart). Empty strings count as "not given". */
const optionalText = (max: number) =>
  z
    .string()
    .max(max)
    .optional()
    .transform((v) => (v ?? "").trim());

export const uploadFieldsSchema = z.object({
  interviewer: optionalText(NAME_MAX),
  interviewee: optionalText(NAME_MAX),
  tone: z
    .union([toneSchema, z.literal("")])
    .optional()
    .transform((v) => (v ? v : null)),
  interviewExample: optionalText(INTERVIEW_EXAMPLE_MAX),
  model: fileTypeSchema,
  uid: z.string().max(64).optional(),
  /**
   * Language of the recording: a Whisper code (en, ja, …, also with a region: pt-BR) or "auto"
   * (detected once, on the longest stretch of speech). Never taken from the interface language.
   */
  language: z
    .union([z.literal(""), audioLanguageSchema])
    .optional()
    .transform((v) => v || AUTO_LANGUAGE),
  /** Interface language of the uploader (links and e-mails); defaults from `language` when that is one. */
  uiLanguage: z.string().max(35).optional(),
  /** Number of speakers: "auto" (estimated) or 1–6; null means auto. */
  speakers: speakerCountSchema,
  /** Names and terms for this recording, one per line (null when blank: the account's glossary is used). */
  glossary: glossaryFieldSchema,
});

export const uploadResponseSchema = z.object({ message: z.string(), jobId: z.string() });

export const JOB_STATUSES = ["queued", "transcribing", "correcting", "completed", "failed"] as const;

/**
 * Notices stored on a job and shown on its page: `diarization_fallback`, the neural speaker
 * diarization failed on this recording and the classic engine told the voices apart instead;
 * `speech_fallback`, the best speech model for the job's language failed to load on the worker and a
 * less accurate engine transcribed it.
 */
export const JOB_NOTICES = ["diarization_fallback", "speech_fallback"] as const;
export type JobNotice = (typeof JOB_NOTICES)[number];

/** The known notice codes among a row's stored ones, in order, without repeats. Pure. */
export function jobNotices(stored: readonly string[]): JobNotice[] {
  return [...new Set(stored)].filter((n): n is JobNotice => (JOB_NOTICES as readonly string[]).includes(n));
}

/** GET /api/transcriptions/{jobId}: the job's snapshot (the truth a reconnecting client reads). */
export const transcriptionSnapshotSchema = z.object({
  jobId: z.string(),
  status: z.enum(JOB_STATUSES),
  transcriptionProgress: z.number(),
  correctionProgress: z.number(),
  transcription: z.string().nullable(),
  rewrittenText: z.string().nullable(),
  audioFileUrl: z.string(),
  audioExpiresAt: z.string(),
  audioExpired: z.boolean(),
  transcriptionTime: z.number().nullable(),
  correctionTime: z.number().nullable(),
  characterCount: z.number().int(),
  durationSeconds: z.number(),
  originalName: z.string(),
  /** The name shown in the library and used for export file names: the file name until renamed. */
  title: z.string(),
  /** Raised by every edit; PATCH and restore send the version they were based on. */
  version: z.number().int(),
  /** When the user last edited the job (null: the texts are the AI output). */
  editedAt: z.string().nullable(),
  model: fileTypeSchema,
  interviewer: z.string(),
  interviewee: z.string(),
  tone: toneSchema.nullable(),
  /** Audio language asked for at upload ("auto" or a Whisper code). */
  audioLanguage: z.string(),
  /** Language Whisper detected (with "auto"), else null. */
  detectedLanguage: z.string().nullable(),
  /** Number of speakers asked for at upload (null: estimated). */
  speakerCount: z.number().int().nullable(),
  /** Diarization engine that told the voices apart ("classic", "sherpa:…"), once known. */
  diarizationEngine: z.string().nullable(),
  /** Notices about how the job was processed (JOB_NOTICES), shown on its page; unknown codes are dropped. */
  notices: z.array(z.enum(JOB_NOTICES)),
  /** The speakers heard, with their names and parts (set when the interview is written; renamable). */
  speakers: z.array(jobSpeakerSchema),
  /** Speech engine and model that transcribed the job ("whisper:base", "pocketsphinx"), once known. */
  transcriptionEngine: z.string().nullable(),
  /** The glossary the job was transcribed and corrected with (the upload's terms, else the account's). */
  glossary: z.array(z.string()),
  /** Timed transcript, in order, in seconds of the recording (while transcribing: the chunks done so far, in order). */
  segments: z.array(transcriptSegmentSchema),
  /**
   * Whether the interview text follows the edited transcript: "updating" while the changed turns are
   * written again, "conflicts" where a changed turn's paragraphs were edited by hand (listed below).
   */
  interviewSync: z.enum(INTERVIEW_SYNC_STATES),
  /** Turns changed in the transcript whose interview wording the user edited: the user picks one. */
  interviewConflicts: z.array(syncConflictSchema),
  createdAt: z.string(),
  error: z.object({ code: z.string(), message: z.string(), stage: z.string().nullable() }).nullable(),
});
export type TranscriptionSnapshot = z.infer<typeof transcriptionSnapshotSchema>;

export const transcriptionListSchema = z.object({
  jobs: z.array(transcriptionSnapshotSchema),
  /** Jobs matching the query in all (for pagination). */
  total: z.number().int().optional(),
  page: z.number().int().optional(),
  pageSize: z.number().int().optional(),
});

/**
 * One job in the library (GET /api/transcriptions?view=library): what the list shows, without the
 * texts (a page of long interviews would otherwise weigh megabytes), and with `q` the passage where
 * the search found it.
 */
export const transcriptionListItemSchema = transcriptionSnapshotSchema
  .pick({
    jobId: true,
    status: true,
    title: true,
    originalName: true,
    version: true,
    durationSeconds: true,
    audioLanguage: true,
    detectedLanguage: true,
    speakers: true,
    createdAt: true,
    editedAt: true,
    error: true,
  })
  .extend({
    /** With `q`: about 160 characters around the first match in the texts (null when only the title matched). */
    snippet: z.string().nullable(),
  });
export type TranscriptionListItem = z.infer<typeof transcriptionListItemSchema>;

export const libraryListSchema = z.object({
  jobs: z.array(transcriptionListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

/** Orders of the library; "relevance" (best match first) only means something with `q`. */
export const LIBRARY_SORTS = ["newest", "oldest", "title", "longest", "relevance"] as const;
export type LibrarySort = (typeof LIBRARY_SORTS)[number];

/**
 * GET /api/transcriptions: `q` searches titles, file names and both texts (full-text search, and
 * substring matching for text without spaces); pages of `limit`, from 1; `sort` (default newest, or
 * relevance when there is a `q`).
 */
export const transcriptionListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  sort: z.enum(LIBRARY_SORTS).optional(),
  /** full (default): job snapshots; library: the light items of the library page, with match snippets. */
  view: z.enum(["full", "library"]).default("full"),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  q: z
    .string()
    .max(200)
    .optional()
    .transform((v) => v?.trim() || undefined)
    .refine((v) => v === undefined || !v.includes("\0"), { message: "q must not contain NUL" }),
});

/** PATCH /api/transcriptions/{jobId}/speakers: new names (by speaker id), and/or swap who is the interviewer. */
export const speakerChangesSchema = z.object({
  names: z
    .array(z.object({ id: z.number().int().min(0), name: z.string().trim().min(1).max(100) }))
    .max(20)
    .default([]),
  swapRoles: z.boolean().default(false),
});
export const renameSpeakersSchema = speakerChangesSchema.refine((v) => v.names.length > 0 || v.swapRoles, {
  message: "give names or swapRoles",
});
export type RenameSpeakers = z.infer<typeof renameSpeakersSchema>;
