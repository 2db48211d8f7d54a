/**
 * How the interview text is brought up to an edited transcript (see interview-sync.ts): the units of
 * a transcript and the paragraphs each owns, the runs of units an edit changed, and the new text with
 * the changed units written again or listed as conflicts. Pure.
 */
import { diffArrays } from "diff";
import { fidelityReport, SUPPORTED } from "./fidelity.ts";
import {
  type InterviewSync,
  joinParagraphs,
  type Paragraphs,
  type SyncConflict,
  type SyncUnit,
  same,
  separatorOf,
  splitParagraphs,
} from "./interview-sync.ts";
import { isSpacelessLanguage } from "./language/index.ts";
import type { TranscriptSegment } from "./speech.ts";

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
