/**
 * The interview workspace's contracts: editing a job (PATCH /api/transcriptions/{jobId}) against the
 * version it was based on, the kept versions and their restore, and the fidelity view.
 */
import { z } from "zod";
import { jobSpeakerSchema, transcriptSegmentSchema } from "./speech.ts";
import { speakerChangesSchema } from "./transcription.ts";

export const TITLE_MAX = 255;
/** Longest text of one edited segment. */
export const SEGMENT_TEXT_MAX = 10_000;
/** Longest edited interview text (a 2-hour interview is about 150,000 characters). */
export const INTERVIEW_TEXT_MAX = 1_000_000;

/**
 * PATCH /api/transcriptions/{jobId}. `version` is the job version the edit was based on; a newer one
 * on the server means someone else (another tab) changed the job, and the edit is refused (409
 * VERSION_CONFLICT). `title` "" or null goes back to the file name. `segments` change the text (and
 * speaker) of segments by index; their times stay. Texts are editable once the job is complete.
 */
export const patchTranscriptionSchema = z
  .object({
    version: z.number().int().min(1),
    title: z.string().trim().max(TITLE_MAX).nullable().optional(),
    speakers: speakerChangesSchema.optional(),
    segments: z
      .array(
        z.object({
          index: z.number().int().min(0),
          text: z.string().max(SEGMENT_TEXT_MAX),
          speaker: z.number().int().min(0).max(19).optional(),
        }),
      )
      .max(50_000)
      .optional(),
    rewrittenText: z.string().max(INTERVIEW_TEXT_MAX).optional(),
  })
  .refine(
    (v) =>
      v.title !== undefined || v.speakers !== undefined || v.segments !== undefined || v.rewrittenText !== undefined,
    { message: "give at least one of title, speakers, segments, rewrittenText" },
  );
export type PatchTranscription = z.infer<typeof patchTranscriptionSchema>;
/** What a client sends (defaults not yet filled in). */
export type PatchTranscriptionInput = z.input<typeof patchTranscriptionSchema>;

/** original: the AI output; edit: the user's edits (close ones coalesced); restore: an earlier version brought back. */
export const VERSION_KINDS = ["original", "edit", "restore"] as const;
export type VersionKind = (typeof VERSION_KINDS)[number];

export const transcriptVersionSummarySchema = z.object({
  version: z.number().int(),
  kind: z.enum(VERSION_KINDS),
  /** The version a restore brought back. */
  restoredFrom: z.number().int().nullable(),
  /** Whether this is the job's current content. */
  current: z.boolean(),
  title: z.string(),
  characterCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TranscriptVersionSummary = z.infer<typeof transcriptVersionSummarySchema>;

/** GET /api/transcriptions/{jobId}/versions: newest first; the original AI output is always there. */
export const transcriptVersionListSchema = z.object({
  version: z.number().int(),
  versions: z.array(transcriptVersionSummarySchema),
});

/** GET /api/transcriptions/{jobId}/versions/{version}: one kept version with its texts. */
export const transcriptVersionSchema = transcriptVersionSummarySchema.extend({
  transcription: z.string().nullable(),
  rewrittenText: z.string().nullable(),
  segments: z.array(transcriptSegmentSchema),
  speakers: z.array(jobSpeakerSchema),
});
export type TranscriptVersion = z.infer<typeof transcriptVersionSchema>;

/** POST /api/transcriptions/{jobId}/versions/{version}/restore: `version` is the job version it was based on. */
export const restoreVersionSchema = z.object({ version: z.number().int().min(1) });
