/**
 * The interview text follows the timed transcript (docs/decisions/0031-interview-text-follows-transcript.md).
 *
 * The timed transcript is the master copy. The interview text is its paragraphs; each paragraph is
 * owned by a unit of the transcript (a run of segments: a speaker's turn where voices were told
 * apart, else the segments its sentences align to), or by none (a passage the user wrote). The sync
 * state keeps, per unit, its source (speaker and raw words) and the paragraphs that were generated for
 * it. When segments change, the units whose source changed are written again by the correction engine
 * and their paragraphs replaced, unless the user edited those paragraphs by hand: then the turn is a
 * conflict, shown with the new wording, and the user picks. The state and its contracts are here, the
 * planning of a sync in interview-sync-plan.ts. Pure: no I/O, safe in the browser.
 */
import { z } from "zod";
import { transcriptSegmentSchema } from "./speech.ts";

export const INTERVIEW_SYNC_STATES = ["in-sync", "updating", "conflicts"] as const;
export type InterviewSyncState = (typeof INTERVIEW_SYNC_STATES)[number];

/** One unit of the transcript as the interview text was last derived from it. */
const syncUnitSchema = z.object({
  /** Its speaker (undefined where voices were not told apart). */
  speaker: z.number().int().optional(),
  /** Its segments' raw words, joined. */
  source: z.string(),
  /** How many segments it spans. */
  count: z.number().int().min(1),
  /** The interview paragraphs written for it ([] when nothing was kept of it). */
  paragraphs: z.array(z.string()),
});
export type SyncUnit = z.infer<typeof syncUnitSchema>;

/** A turn changed in the transcript whose interview paragraphs the user had edited by hand. */
export const syncConflictSchema = z.object({
  id: z.string(),
  /** The wording written from the edited transcript. */
  transcriptText: z.string(),
  /** What the interview text has there now (the user's own wording; "" when they removed it). */
  interviewText: z.string(),
  /** The paragraph just before it in the interview text (where the new wording goes if there is none). */
  before: z.string().nullable(),
  /** Where in the recording (seconds). */
  start: z.number(),
  end: z.number(),
});
export type SyncConflict = z.infer<typeof syncConflictSchema>;

/** As stored on the job (transcription_jobs.interview_sync). */
export const interviewSyncSchema = z.object({
  state: z.enum(INTERVIEW_SYNC_STATES),
  /** The version the user's own last write produced: every later version is a sync. */
  userVersion: z.number().int(),
  units: z.array(syncUnitSchema),
  conflicts: z.array(syncConflictSchema),
  /** The segments (by their text and speaker) the units were derived from, to diff the next edit against. */
  keys: z.array(z.string()),
  /**
   * The texts before the user's first edit, when the units are still to be found from them (the sync
   * job does it, off the request path): the AI output, or the texts a restore brought back.
   */
  base: z.object({ segments: z.array(transcriptSegmentSchema), text: z.string() }).optional(),
});
export type InterviewSync = z.infer<typeof interviewSyncSchema>;

/** POST /api/transcriptions/{jobId}/interview-sync: take the transcript's wording, or keep the interview's. */
export const resolveSyncSchema = z.object({
  version: z.number().int().min(1),
  conflict: z.string().min(1).max(64),
  keep: z.enum(["transcript", "interview"]),
});
export type ResolveSync = z.infer<typeof resolveSyncSchema>;

/** Reads a stored sync state; null when absent or from an older shape. */
export function readSync(value: unknown): InterviewSync | null {
  const parsed = interviewSyncSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** What the snapshot says about it. */
export function syncSummary(sync: InterviewSync | null): {
  interviewSync: InterviewSyncState;
  interviewConflicts: SyncConflict[];
} {
  return { interviewSync: sync?.state ?? "in-sync", interviewConflicts: sync?.conflicts ?? [] };
}

// ---------------------------------------------------------------------------------------------
// Paragraphs

export interface Paragraphs {
  items: string[];
  /** The separator after each item (the last one's is unused). */
  seps: string[];
}

const SEPARATOR = /(\n[ \t]*\n\s*|\n)/;

/** The text's paragraphs (lines or blank-line separated blocks) with the separators between them. */
export function splitParagraphs(text: string): Paragraphs {
  const parts = text.trim().split(SEPARATOR);
  const items: string[] = [];
  const seps: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    if (!parts[i].trim()) continue;
    items.push(parts[i]);
    seps.push(parts[i + 1] ?? "\n\n");
  }
  return { items, seps };
}

export function joinParagraphs(p: Paragraphs): string {
  return p.items.map((item, i) => (i < p.items.length - 1 ? item + p.seps[i] : item)).join("");
}

/** The separator a text uses between paragraphs. */
export function separatorOf(text: string): string {
  return /\n[ \t]*\n/.test(text) || !text.includes("\n") ? "\n\n" : "\n";
}

export const same = (a: string, b: string) => a.trim().replace(/\s+/g, " ") === b.trim().replace(/\s+/g, " ");

/**
 * A conflict resolved: "transcript" puts the transcript's wording in place of the user's (where the
 * user's wording still is), "interview" keeps the user's. Throws a RangeError when the conflict is not
 * listed, and an Error when the user's wording changed since (reload and pick again).
 */
export function resolveConflict(
  text: string,
  sync: InterviewSync,
  id: string,
  keep: "transcript" | "interview",
): { text: string; sync: InterviewSync } {
  const conflict = sync.conflicts.find((c) => c.id === id);
  if (!conflict) throw new RangeError(`no conflict ${id}`);
  let next = text;
  if (keep === "transcript") {
    if (conflict.interviewText) {
      const at = text.indexOf(conflict.interviewText);
      if (at < 0) throw new Error("the interview text changed there since");
      next = text.slice(0, at) + conflict.transcriptText + text.slice(at + conflict.interviewText.length);
    } else {
      const sep = separatorOf(text);
      const anchor = conflict.before ? text.indexOf(conflict.before) : -1;
      if (conflict.before && anchor < 0) throw new Error("the interview text changed there since");
      const at = anchor < 0 ? 0 : anchor + (conflict.before?.length ?? 0);
      next =
        anchor < 0
          ? `${conflict.transcriptText}${text ? sep : ""}${text}`
          : `${text.slice(0, at)}${sep}${conflict.transcriptText}${text.slice(at)}`;
    }
  }
  const conflicts = sync.conflicts.filter((c) => c.id !== id);
  return {
    text: next,
    sync: {
      ...sync,
      conflicts,
      state: conflicts.length ? "conflicts" : sync.state === "updating" ? "updating" : "in-sync",
    },
  };
}

/** Speaker renames reach the paragraphs the sync keeps and its conflicts (as they reach the text). */
export function relabelSync(sync: InterviewSync, relabel: (text: string) => string): InterviewSync {
  return {
    ...sync,
    ...(sync.base ? { base: { ...sync.base, text: relabel(sync.base.text) } } : {}),
    units: sync.units.map((u) => ({ ...u, paragraphs: u.paragraphs.map(relabel) })),
    conflicts: sync.conflicts.map((c) => ({
      ...c,
      transcriptText: relabel(c.transcriptText),
      interviewText: relabel(c.interviewText),
      before: c.before === null ? null : relabel(c.before),
    })),
  };
}
