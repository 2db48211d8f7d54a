/**
 * The interview text follows the timed transcript (docs/decisions/0031-interview-text-follows-transcript.md).
 *
 * The timed transcript is the master copy. The interview text is its paragraphs; each paragraph is
 * owned by a unit of the transcript (a run of segments: a speaker's turn where voices were told
 * apart, else the segments its sentences align to), or by none (a passage the user wrote). The sync
 * state keeps, per unit, its source (speaker and raw words) and the paragraphs that were generated for
 * it. When segments change, the units whose source changed are written again by the correction engine
 * and their paragraphs replaced, unless the user edited those paragraphs by hand: then the turn is a
 * conflict, shown with the new wording, and the user picks. Pure: no I/O, safe in the browser.
 */
import { diffArrays } from "diff";
import { z } from "zod";
import { fidelityReport, SUPPORTED } from "./fidelity.ts";
import { isSpacelessLanguage } from "./language/index.ts";
import { type TranscriptSegment, transcriptSegmentSchema } from "./speech.ts";

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

/** POST /api/transcriptions/{jobId}/segments/{index}/split: split a line at a character offset. */
export const splitSegmentSchema = z.object({
  version: z.number().int().min(1),
  /** Character offset in the segment's text where the second line begins. */
  at: z.number().int().min(1),
  /** Who says the second line (default: the same speaker). */
  speaker: z.number().int().min(0).max(19).optional(),
});
export type SplitSegment = z.infer<typeof splitSegmentSchema>;

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

interface Paragraphs {
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

function joinParagraphs(p: Paragraphs): string {
  return p.items.map((item, i) => (i < p.items.length - 1 ? item + p.seps[i] : item)).join("");
}

/** The separator a text uses between paragraphs. */
function separatorOf(text: string): string {
  return /\n[ \t]*\n/.test(text) || !text.includes("\n") ? "\n\n" : "\n";
}

const same = (a: string, b: string) => a.trim().replace(/\s+/g, " ") === b.trim().replace(/\s+/g, " ");

// ---------------------------------------------------------------------------------------------
// Units

const segmentKey = (s: Pick<TranscriptSegment, "text" | "speaker">) => `${s.speaker ?? ""}\u0001${s.text.trim()}`;
const unitKey = (u: Pick<SyncUnit, "speaker" | "source">) => `${u.speaker ?? ""}\u0001${u.source}`;

/** Whether the segments carry two or more speakers (then a unit is a speaker's turn). */
export function hasVoices(segments: readonly TranscriptSegment[]): boolean {
  return new Set(segments.map((s) => s.speaker).filter((v) => v !== undefined)).size >= 2;
}

function sourceOf(segments: readonly TranscriptSegment[], spaceless: boolean): string {
  return segments
    .map((s) => s.text.trim())
    .filter(Boolean)
    .join(spaceless ? "" : " ");
}

/** Turn boundaries: consecutive segments of one speaker (a segment without one joins the previous). */
function turnRanges(segments: readonly TranscriptSegment[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let speaker: number | undefined;
  segments.forEach((s, i) => {
    const who = s.speaker ?? speaker;
    if (out.length && who === speaker) out[out.length - 1][1] = i + 1;
    else out.push([i, i + 1]);
    speaker = who;
  });
  return out;
}

function unitFrom(
  segments: readonly TranscriptSegment[],
  [from, to]: [number, number],
  paragraphs: string[],
  spaceless: boolean,
): SyncUnit {
  const part = segments.slice(from, to);
  const speaker = part.find((s) => s.speaker !== undefined)?.speaker;
  return {
    ...(speaker !== undefined ? { speaker } : {}),
    source: sourceOf(part, spaceless),
    count: to - from,
    paragraphs,
  };
}

export interface SyncOptions {
  language: string;
  /** The job's speakers (ids as in the segments, names as in the labels). */
  speakers?: Array<{ id: number; name: string }>;
}

/**
 * Which segments each paragraph of `text` comes from: the range of the segments its supported
 * sentences align to (fidelityReport's monotonic alignment), null for a paragraph nothing supports.
 */
function paragraphSpans(
  segments: readonly TranscriptSegment[],
  text: string,
  paragraphs: Paragraphs,
  opts: SyncOptions,
): Array<[number, number] | null> {
  const raw = sourceOf(segments, isSpacelessLanguage(opts.language));
  const report = fidelityReport(raw, text, {
    language: opts.language,
    speakerNames: opts.speakers?.map((s) => s.name),
    speakers: opts.speakers,
    segments: segments.map((s) => ({ start: s.start, end: s.end, text: s.text, speaker: s.speaker })),
    diffTimeoutMs: 0,
  });
  // Character offsets of each paragraph in the trimmed text the report read.
  const trimmed = text.trim();
  const offsets: Array<[number, number]> = [];
  let at = 0;
  for (const item of paragraphs.items) {
    const start = trimmed.indexOf(item, at);
    offsets.push([start, start + item.length]);
    at = start + item.length;
  }
  const lead = text.length - text.trimStart().length;
  const spans: Array<[number, number] | null> = paragraphs.items.map(() => null);
  for (const s of report.sentences) {
    if (s.support < SUPPORTED || s.startSeconds === null || s.endSeconds === null) continue;
    const p = offsets.findIndex(([a, b]) => s.start - lead >= a && s.start - lead < b);
    if (p < 0) continue;
    const first = segmentAt(segments, s.startSeconds, "first");
    const last = segmentAt(segments, s.endSeconds, "last");
    if (first < 0 || last < first) continue;
    const span = spans[p];
    spans[p] = span ? [Math.min(span[0], first), Math.max(span[1], last + 1)] : [first, last + 1];
  }
  return spans;
}

/** The segment a time falls in (the first one ending after it, or the last one starting before it). */
function segmentAt(segments: readonly TranscriptSegment[], t: number, edge: "first" | "last"): number {
  if (edge === "first") {
    const i = segments.findIndex((s) => s.end > t + 0.01);
    return i < 0 ? segments.length - 1 : i;
  }
  for (let i = segments.length - 1; i >= 0; i--) if (segments[i].start < t - 0.01) return i;
  return 0;
}

/**
 * The units of a transcript and the paragraphs of `text` each one owns, as the sync's starting point
 * (the AI output, or a job's text when it was first edited). Paragraphs that belong to no unit stay
 * where they are, untouched by any sync.
 */
export function baselineOf(
  segments: readonly TranscriptSegment[],
  text: string,
  opts: SyncOptions,
  userVersion: number,
): InterviewSync {
  const spaceless = isSpacelessLanguage(opts.language);
  const paragraphs = splitParagraphs(text);
  const spans = paragraphSpans(segments, text, paragraphs, opts);
  // Units: turns where voices were told apart; else the paragraphs' spans, merged where they overlap.
  let ranges: Array<[number, number]>;
  if (hasVoices(segments)) ranges = turnRanges(segments);
  else {
    ranges = [];
    let cursor = 0;
    const sorted = spans.filter((s): s is [number, number] => !!s).sort((a, b) => a[0] - b[0]);
    for (const [a, b] of sorted) {
      const last = ranges.at(-1);
      if (last && a < last[1]) last[1] = Math.max(last[1], b);
      else {
        for (; cursor < a; cursor++) ranges.push([cursor, cursor + 1]);
        ranges.push([a, b]);
      }
      cursor = Math.max(cursor, ranges.at(-1)?.[1] ?? 0);
    }
    for (; cursor < segments.length; cursor++) ranges.push([cursor, cursor + 1]);
  }
  const owned: string[][] = ranges.map(() => []);
  let previous = 0;
  spans.forEach((span, p) => {
    if (!span) return;
    let unit = ranges.findIndex(([a, b]) => span[0] >= a && span[0] < b);
    // Kept in order: a paragraph that would go back is the user's own, owned by none.
    if (unit < previous) unit = -1;
    if (unit < 0) return;
    owned[unit].push(paragraphs.items[p]);
    previous = unit;
  });
  return {
    state: "in-sync",
    userVersion,
    units: ranges.map((r, i) => unitFrom(segments, r, owned[i], spaceless)),
    conflicts: [],
    keys: segments.map(segmentKey),
  };
}

// ---------------------------------------------------------------------------------------------
// Planning a sync

/** A run of old units replaced by new ones. */
export interface SyncRegion {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
}

export interface SyncPlan {
  /** The new units (paragraphs carried over where unchanged; [] where they are to be written). */
  units: SyncUnit[];
  regions: SyncRegion[];
  /** Segment ranges of the new units, to write them from. */
  ranges: Array<[number, number]>;
}

/**
 * The units of the edited segments, and which runs of units changed. With voices, the units are the
 * new turns; without, the old units' boundaries are carried over the segment diff.
 */
export function planSync(sync: InterviewSync, segments: readonly TranscriptSegment[], language: string): SyncPlan {
  const spaceless = isSpacelessLanguage(language);
  let ranges: Array<[number, number]>;
  if (hasVoices(segments)) ranges = turnRanges(segments);
  else ranges = carryRanges(sync, segments);
  const units = ranges.map((r) => unitFrom(segments, r, [], spaceless));
  const regions: SyncRegion[] = [];
  let o = 0;
  let n = 0;
  let open: SyncRegion | null = null;
  for (const part of diffArrays(sync.units.map(unitKey), units.map(unitKey))) {
    const count = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      for (let k = 0; k < count; k++) units[n + k].paragraphs = sync.units[o + k].paragraphs;
      if (open) regions.push(open);
      open = null;
      o += count;
      n += count;
      continue;
    }
    open ??= { oldFrom: o, oldTo: o, newFrom: n, newTo: n };
    if (part.removed) o += count;
    else n += count;
    open.oldTo = o;
    open.newTo = n;
  }
  if (open) regions.push(open);
  return { units, regions, ranges };
}

/** Without voices: the old units' boundaries moved over the segment diff (a changed segment stays in its unit). */
function carryRanges(sync: InterviewSync, segments: readonly TranscriptSegment[]): Array<[number, number]> {
  // Old segment index → its unit.
  const unitOfOld: number[] = [];
  sync.units.forEach((u, i) => {
    for (let k = 0; k < u.count; k++) unitOfOld.push(i);
  });
  const unitOfNew: number[] = [];
  let o = 0;
  // A changed segment (removed, then added in its place) stays in the unit of the one it replaced;
  // an inserted one joins the unit before it.
  let replaced: number | null = null;
  for (const part of diffArrays(sync.keys, segments.map(segmentKey))) {
    const count = part.count ?? part.value.length;
    if (part.removed) {
      replaced ??= o;
      o += count;
      continue;
    }
    for (let k = 0; k < count; k++) {
      const ref = part.added ? (replaced ?? Math.max(0, o - 1)) : o + k;
      unitOfNew.push(unitOfOld[Math.min(ref, unitOfOld.length - 1)] ?? 0);
    }
    if (!part.added) o += count;
    replaced = null;
  }
  const ranges: Array<[number, number]> = [];
  unitOfNew.forEach((u, i) => {
    if (i > 0 && unitOfNew[i - 1] === u) ranges[ranges.length - 1][1] = i + 1;
    else ranges.push([i, i + 1]);
  });
  return ranges;
}

/** Where each old unit's paragraphs are in the current text: [from, to) paragraph indexes, null if edited. */
function locate(units: SyncUnit[], current: Paragraphs): Array<[number, number] | null> {
  let cursor = 0;
  return units.map((u) => {
    if (u.paragraphs.length === 0) return [cursor, cursor];
    for (let j = cursor; j + u.paragraphs.length <= current.items.length; j++) {
      if (u.paragraphs.every((p, k) => same(p, current.items[j + k]))) {
        cursor = j + u.paragraphs.length;
        return [j, cursor];
      }
    }
    return null;
  });
}

/** A short stable id (FNV-1a) for a conflict. */
function idOf(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

export interface SyncResult {
  text: string;
  sync: InterviewSync;
  /** Units written again (their paragraphs replaced in the text). */
  updated: number;
}

/**
 * Applies a plan: `written` holds the new paragraphs of every unit of a changed region (by new unit
 * index). Regions whose old paragraphs are all still as generated are replaced in the text; the others
 * become conflicts (the text keeps the user's wording there). Conflicts already listed stay listed.
 */
export function applySync(
  sync: InterviewSync,
  plan: SyncPlan,
  segments: readonly TranscriptSegment[],
  text: string,
  written: ReadonlyMap<number, string[]>,
): SyncResult {
  const current = splitParagraphs(text);
  const sep = separatorOf(text);
  const at = locate(sync.units, current);
  const units = plan.units.map((u, i) => (written.has(i) ? { ...u, paragraphs: written.get(i) ?? [] } : u));
  const conflicts = [...sync.conflicts];
  // Replacements, applied from the end so earlier indexes stay valid.
  const edits: Array<{ from: number; to: number; items: string[] }> = [];
  let updated = 0;
  for (const r of plan.regions) {
    const fresh = units.slice(r.newFrom, r.newTo).flatMap((u) => u.paragraphs);
    const olds = at.slice(r.oldFrom, r.oldTo);
    const prev = r.oldFrom > 0 ? at[r.oldFrom - 1] : [0, 0];
    const next = r.oldTo < at.length ? at[r.oldTo] : [current.items.length, current.items.length];
    const placed = olds.length ? olds.every((x) => x !== null) : prev !== null;
    if (placed) {
      const from = olds.length ? (olds[0] as [number, number])[0] : (prev as [number, number])[1];
      const to = olds.length ? (olds.at(-1) as [number, number])[1] : from;
      const ownedIdx = new Set(olds.flatMap((x) => (x ? range(x[0], x[1]) : [])));
      // The user's own paragraphs inside the run stay, after the new wording.
      const kept = range(from, to)
        .filter((j) => !ownedIdx.has(j))
        .map((j) => current.items[j]);
      edits.push({ from, to, items: [...fresh, ...kept] });
      updated += r.newTo - r.newFrom;
      continue;
    }
    // Edited by hand: the user picks. The region in the text lies between its located neighbours.
    const lo = prev ? prev[1] : (olds.find((x) => x)?.[0] ?? 0);
    const lastPlaced = [...olds].reverse().find((x) => x);
    const hi = next ? next[0] : (lastPlaced?.[1] ?? current.items.length);
    const interviewText = current.items.slice(lo, Math.max(lo, hi)).join(sep);
    const transcriptText = fresh.join(sep);
    if (same(interviewText, transcriptText)) continue;
    const span = plan.ranges.slice(r.newFrom, r.newTo);
    const first = span[0]?.[0] ?? 0;
    const last = (span.at(-1)?.[1] ?? first + 1) - 1;
    const conflict: SyncConflict = {
      id: idOf(`${interviewText}\u0001${transcriptText}`),
      transcriptText,
      interviewText,
      before: lo > 0 ? current.items[lo - 1] : null,
      start: segments[first]?.start ?? 0,
      end: segments[Math.max(first, last)]?.end ?? 0,
    };
    const clash = conflicts.findIndex((c) => same(c.interviewText, interviewText) && c.start === conflict.start);
    if (clash >= 0) conflicts[clash] = conflict;
    else conflicts.push(conflict);
  }
  const next: Paragraphs = { items: [...current.items], seps: [...current.seps] };
  for (const e of edits.sort((a, b) => b.from - a.from)) {
    const tailSep = e.to > e.from ? next.seps[e.to - 1] : sep;
    next.items.splice(e.from, e.to - e.from, ...e.items);
    next.seps.splice(
      e.from,
      e.to - e.from,
      ...e.items.map((_, k) => (k === e.items.length - 1 ? (tailSep ?? sep) : sep)),
    );
  }
  return {
    text: joinParagraphs(next),
    sync: {
      state: conflicts.length ? "conflicts" : "in-sync",
      userVersion: sync.userVersion,
      units,
      conflicts,
      keys: segments.map(segmentKey),
    },
    updated,
  };
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i);

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

/**
 * A segment split in two at a character offset (cut at the nearest word boundary for spaced text).
 * The time is divided at the word times where the segment has them, else in proportion to the
 * characters. Throws a RangeError for an offset that leaves either part empty.
 */
export function splitSegment(
  segment: TranscriptSegment,
  at: number,
  speaker: number | undefined,
): [TranscriptSegment, TranscriptSegment] {
  const text = segment.text;
  // Inside a word of spaced text: at the nearest space.
  if (/\S/.test(text[at - 1] ?? "") && /\S/.test(text[at] ?? "") && /\s/.test(text)) {
    const left = text.lastIndexOf(" ", at);
    const right = text.indexOf(" ", at);
    if (left < 0 && right >= 0) at = right;
    else if (right < 0 && left >= 0) at = left;
    else if (left >= 0 && right >= 0) at = at - left <= right - at ? left : right;
  }
  const head = text.slice(0, at).trimEnd();
  const tail = text.slice(at).trimStart();
  if (!head.trim() || !tail.trim()) throw new RangeError("both parts of a split line need words");
  let cut = segment.start + ((segment.end - segment.start) * head.length) / Math.max(1, head.length + tail.length);
  let headWords: TranscriptSegment["words"];
  let tailWords: TranscriptSegment["words"];
  if (segment.words?.length) {
    // The words whose letters make up the first part (text with or without spaces alike).
    const headLetters = head.replace(/\s+/g, "").length;
    let letters = 0;
    let wordsBefore = 0;
    while (wordsBefore < segment.words.length && letters < headLetters) {
      letters += segment.words[wordsBefore].text.replace(/\s+/g, "").length;
      wordsBefore++;
    }
    if (letters !== headLetters) wordsBefore = 0;
    headWords = segment.words.slice(0, wordsBefore);
    tailWords = segment.words.slice(wordsBefore);
    if (headWords.length && tailWords.length) cut = tailWords[0].start;
    else {
      headWords = undefined;
      tailWords = undefined;
    }
  }
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const first: TranscriptSegment = { ...segment, end: round(cut), text: head };
  const second: TranscriptSegment = { ...segment, start: round(cut), text: tail };
  delete first.words;
  delete second.words;
  if (headWords && tailWords) {
    first.words = headWords;
    second.words = tailWords;
  }
  if (speaker !== undefined) second.speaker = speaker;
  return [first, second];
}
