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

/** original: the AI output; edit: the user's edits (close ones coalesced); restore: an earlier version brought back; sync: the interview text brought up to the edited transcript. */
export const VERSION_KINDS = ["original", "edit", "restore", "sync"] as const;
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

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The passage of `text` around the first place a search `q` matches (case-insensitive): the whole
 * query, else its longest word that occurs. About `radius` characters either side, cut at a space
 * where there is one near, "…" where text was left out, line breaks folded. Null when nothing matches.
 */
export function matchSnippet(text: string | null, q: string, radius = 80): string | null {
  if (!text || !q.trim()) return null;
  const candidates = [
    q.trim(),
    ...q
      .trim()
      .split(/\s+/)
      .sort((a, b) => b.length - a.length),
  ];
  for (const c of candidates) {
    const m = new RegExp(escapeRegExp(c), "iu").exec(text);
    if (!m) continue;
    let start = Math.max(0, m.index - radius);
    let end = Math.min(text.length, m.index + m[0].length + radius);
    // Whole words at the edges, when a space is close.
    if (start > 0) {
      const space = text.indexOf(" ", start);
      if (space >= 0 && space < m.index && space - start < 20) start = space + 1;
    }
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      if (space > m.index + m[0].length && end - space < 20) end = space;
    }
    const body = text.slice(start, end).replace(/\s+/g, " ").trim();
    return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
  }
  return null;
}
