/**
 * The workspace's use cases: editing a finished job and its kept versions (PATCH
 * /api/transcriptions/{jobId}, a line split, a sync conflict resolved, the speaker rename, restore),
 * and the fidelity view. Every write names the job version it was based on; the row is updated only
 * while it still has that version (a compare-and-set in one UPDATE, workspace/repository.ts), so two
 * tabs never silently overwrite each other: the later write gets 409 VERSION_CONFLICT with the current
 * version.
 *
 * Versions: before the first edit the AI output is kept as the "original"; each edit is kept, edits
 * following each other within EDIT_COALESCE_MS fold into one version (an autosave every few seconds
 * must not bury the original under hundreds of versions), and so do restores following each other.
 * At most KEPT_EDITS edits and restores are kept, and at most KEPT_VERSION_BYTES of their texts, the
 * oldest going first (the original always stays). Writes per job are limited to
 * WRITES_PER_JOB_PER_MINUTE (429 with Retry-After), so a script cannot churn the store.
 */
import {
  AppError,
  applySpeakerRename,
  approximateWords,
  charCount,
  type FidelityReport,
  glossaryOf,
  type InterviewSync,
  type JobSpeaker,
  jobTextLanguage,
  type PatchTranscription,
  QUEUES,
  type ResolveSync,
  readSync,
  relabelSync,
  relabelText,
  resolveConflict,
  type SplitSegment,
  segmentsText,
  splitSegment,
  type TranscriptSegment,
  type TranscriptVersionSummary,
  type VersionKind,
  withWords,
} from "@kikitori/shared";
import {
  contentOf,
  type JobQueues,
  type JobRow,
  KEPT_VERSION_BYTES,
  type VersionContent,
  type VersionRow,
} from "@kikitori/shared/server";
import { createFidelityService, type FidelityService } from "./fidelity.ts";

export { EDIT_COALESCE_MS, KEPT_EDITS, KEPT_VERSION_BYTES } from "@kikitori/shared/server";
/**
 * Edits and restores of one job per minute. The editor saves at most about once a second while
 * someone types, so two tabs typing at once stay under it; a script churning versions does not.
 */
export const WRITES_PER_JOB_PER_MINUTE = 120;

/** The job and its kept versions, as the workspace reads and writes them. */
export interface WorkspaceRepository {
  /** The user's own job, or 404 NOT_FOUND. */
  ownJob(uid: string, jobId: string): Promise<JobRow>;
  /**
   * Writes `next` as version `v.version` (job.version + 1) if the row is still at job.version, and
   * keeps the version (within `v.keptBytes`). `sync`: the interview sync state to store with it
   * (unchanged when undefined). Not written: `saved` null, `current` the row's version (null: gone).
   */
  writeVersion(
    job: JobRow,
    next: VersionContent,
    v: { version: number; kind: VersionKind; restoredFrom: number | null; at: Date; keptBytes: number },
    sync?: InterviewSync | null,
  ): Promise<{ saved: JobRow; current: number } | { saved: null; current: number | null }>;
  findVersion(jobId: string, version: number): Promise<VersionRow | null>;
  /** The kept versions of a job, newest first. */
  versions(jobId: string): Promise<VersionRow[]>;
}

/** Counts the writes to a job in a fixed one-minute window: the count so far and the window's seconds left. */
export interface WriteCounter {
  count(jobId: string): Promise<{ count: number; ttl: number }>;
}

export interface WorkspacePorts {
  repo: WorkspaceRepository;
  now?: () => Date;
  /** Counts writes per job (shared by every gateway); without it writes are not limited. */
  writes?: WriteCounter;
  limits?: { keptVersionBytes?: number; writesPerJobPerMinute?: number };
  /** Adds the job that brings the interview text up to an edited transcript (none: texts do not follow). */
  jobs?: Pick<JobQueues, "enqueue">;
  /** Works out the fidelity view off the event loop (fidelity.ts). */
  fidelity?: FidelityService;
}

function conflict(current: number): AppError {
  return new AppError(
    "VERSION_CONFLICT",
    `The transcription was changed elsewhere meanwhile (it is now at version ${current}); reload it before editing`,
    { details: { version: current } },
  );
}

/** A fixed one-minute window per job: past the limit, 429 with the seconds to wait. */
async function limitWrites(deps: WorkspacePorts, jobId: string): Promise<void> {
  if (!deps.writes) return;
  const writesPerMinute = deps.limits?.writesPerJobPerMinute ?? WRITES_PER_JOB_PER_MINUTE;
  const { count, ttl } = await deps.writes.count(jobId);
  if (count > writesPerMinute) {
    throw new AppError("RATE_LIMITED", "Too many changes to this transcription. Please wait a moment.", {
      details: { retryAfterSeconds: Math.max(ttl, 1) },
    });
  }
}

/**
 * Writes `next` as version job.version + 1 if the row is still at job.version; keeps the versions.
 * `sync`: the interview sync state to store with it (unchanged when undefined).
 */
async function writeVersion(
  deps: WorkspacePorts,
  job: JobRow,
  next: VersionContent,
  kind: VersionKind,
  restoredFrom: number | null,
  sync?: InterviewSync | null,
): Promise<JobRow> {
  const at = deps.now ? deps.now() : new Date();
  const keptBytes = deps.limits?.keptVersionBytes ?? KEPT_VERSION_BYTES;
  const version = job.version + 1;
  const written = await deps.repo.writeVersion(job, next, { version, kind, restoredFrom, at, keptBytes }, sync);
  if (written.saved) return written.saved;
  if (written.current === null) throw new AppError("NOT_FOUND", "No such transcription");
  throw conflict(written.current);
}

/** The job that brings the interview text up to the edited transcript (one per version: each reads the latest). */
async function enqueueSync(deps: WorkspacePorts, saved: JobRow): Promise<void> {
  if (!deps.jobs) return;
  await deps.jobs.enqueue(
    QUEUES.correction,
    "sync-interview",
    { jobId: saved.id, userId: saved.userId },
    { jobId: `sync-${saved.id}-${saved.version}`, delay: 300 },
  );
}

/**
 * Applies the PATCH's line changes to `next` (texts, speakers and the transcript built from them);
 * says whether any line changed.
 */
function applySegmentChanges(job: JobRow, next: VersionContent, changes: NonNullable<PatchTranscription["segments"]>) {
  if (!next.segments) throw new AppError("VALIDATION_FAILED", "This job has no timed segments to edit");
  const segments = next.segments.map((s) => ({ ...s }));
  let changed = false;
  for (const change of changes) {
    const seg = segments[change.index];
    if (!seg) throw new AppError("VALIDATION_FAILED", `No segment ${change.index} (the job has ${segments.length})`);
    if (seg.text !== change.text) {
      seg.text = change.text;
      // The engine's word times no longer match the edited text: spread over its words instead.
      seg.words = approximateWords(seg, jobTextLanguage(job));
      changed = true;
    }
    if (change.speaker !== undefined && seg.speaker !== change.speaker) {
      seg.speaker = change.speaker;
      changed = true;
    }
  }
  next.segments = segments;
  next.transcription = segmentsText(segments, jobTextLanguage(job));
  return changed;
}

/** Renames speakers in `next` (list and interview text) and in the sync state; returns the new sync state. */
function applySpeakerNames(
  next: VersionContent,
  names: NonNullable<PatchTranscription["speakers"]>,
  sync: InterviewSync | null,
): InterviewSync | null {
  if (!next.speakers?.length || next.rewrittenText === null) {
    throw new AppError("JOB_NOT_READY", "The speakers are named once the interview text is written");
  }
  let change: ReturnType<typeof applySpeakerRename>;
  try {
    change = applySpeakerRename(next.speakers, names);
  } catch (err) {
    throw new AppError("VALIDATION_FAILED", (err as Error).message);
  }
  next.speakers = change.speakers;
  next.rewrittenText = relabelText(next.rewrittenText, change.renames);
  return sync ? relabelSync(sync, (t) => relabelText(t, change.renames)) : sync;
}

/** Replaces line `index` of `next` by its two parts, split at `body.at`; the transcript follows. */
function splitLine(job: JobRow, next: VersionContent, index: number, body: SplitSegment): void {
  const segments = next.segments ?? [];
  const seg = segments[index];
  if (!seg) throw new AppError("VALIDATION_FAILED", `No segment ${index} (the job has ${segments.length})`);
  if (body.at >= seg.text.length) {
    throw new AppError("VALIDATION_FAILED", "Split a line between two of its words");
  }
  let parts: ReturnType<typeof splitSegment>;
  try {
    parts = splitSegment(seg, body.at, body.speaker);
  } catch (err) {
    throw new AppError("VALIDATION_FAILED", (err as Error).message);
  }
  const language = jobTextLanguage(job);
  next.segments = [
    ...segments.slice(0, index),
    ...parts.map((part) => withWords(part, language)),
    ...segments.slice(index + 1),
  ];
  next.transcription = segmentsText(next.segments, jobTextLanguage(job));
}

/** The workspace's use cases over a repository (workspace/repository.ts, or in memory in the tests). */
export class WorkspaceService {
  private readonly repo: WorkspaceRepository;
  private readonly fidelityReports: FidelityService;

  constructor(private readonly deps: WorkspacePorts) {
    this.repo = deps.repo;
    this.fidelityReports = deps.fidelity ?? createFidelityService();
  }

  private write(
    job: JobRow,
    next: VersionContent,
    kind: VersionKind,
    restoredFrom: number | null,
    sync?: InterviewSync | null,
  ): Promise<JobRow> {
    return writeVersion(this.deps, job, next, kind, restoredFrom, sync);
  }

  /** The user's own job, or 404 NOT_FOUND. */
  job(uid: string, jobId: string): Promise<JobRow> {
    return this.repo.ownJob(uid, jobId);
  }

  /** Applies a PATCH (title, speaker names, segment texts, interview text) based on `body.version`. */
  async edit(job: JobRow, body: PatchTranscription): Promise<JobRow> {
    await limitWrites(this.deps, job.id);
    const sync = readSync(job.interviewSync);
    if (body.version !== job.version && !onlySyncedSince(sync, body, job.version)) throw conflict(job.version);
    const next = contentOf(job);
    if (body.title !== undefined) next.title = body.title ? body.title : null;
    const textEdit = body.segments !== undefined || body.rewrittenText !== undefined || body.speakers !== undefined;
    if (textEdit && job.status !== "completed") {
      throw new AppError("JOB_NOT_READY", "The texts can be edited once the job is complete");
    }
    const segmentsChanged = body.segments?.length ? applySegmentChanges(job, next, body.segments) : false;
    if (body.rewrittenText !== undefined) next.rewrittenText = body.rewrittenText;
    let nextSync = textEdit ? userWrote(sync, job, job.version + 1) : sync;
    if (body.speakers) nextSync = applySpeakerNames(next, body.speakers, nextSync);
    const following = segmentsChanged && next.rewrittenText !== null && this.deps.jobs !== undefined;
    if (following && nextSync) nextSync = { ...nextSync, state: "updating" };
    const saved = await this.write(job, next, "edit", null, textEdit ? nextSync : undefined);
    if (following) await enqueueSync(this.deps, saved);
    return saved;
  }

  /**
   * Splits line `index` in two at a character offset; the second line may go to another speaker.
   * The interview text follows as for any edit of the transcript.
   */
  async split(job: JobRow, index: number, body: SplitSegment): Promise<JobRow> {
    await limitWrites(this.deps, job.id);
    const sync = readSync(job.interviewSync);
    if (body.version !== job.version && !onlySyncedSince(sync, body, job.version)) throw conflict(job.version);
    if (job.status !== "completed") {
      throw new AppError("JOB_NOT_READY", "The texts can be edited once the job is complete");
    }
    const next = contentOf(job);
    splitLine(job, next, index, body);
    const following = next.rewrittenText !== null && this.deps.jobs !== undefined;
    const written = userWrote(sync, job, job.version + 1);
    const saved = await this.write(
      job,
      next,
      "edit",
      null,
      written && following ? { ...written, state: "updating" } : written,
    );
    if (following) await enqueueSync(this.deps, saved);
    return saved;
  }

  /** A conflict of the interview sync resolved: the transcript's new wording, or the user's own. */
  async resolve(job: JobRow, body: ResolveSync): Promise<JobRow> {
    await limitWrites(this.deps, job.id);
    const sync = readSync(job.interviewSync);
    if (body.version !== job.version && !onlySyncedSince(sync, body, job.version)) throw conflict(job.version);
    if (!sync || job.rewrittenText === null) throw new AppError("NOT_FOUND", "No such conflict");
    let resolved: ReturnType<typeof resolveConflict>;
    try {
      resolved = resolveConflict(job.rewrittenText, sync, body.conflict, body.keep);
    } catch (err) {
      if (err instanceof RangeError) throw new AppError("NOT_FOUND", "No such conflict");
      throw conflict(job.version);
    }
    const next = { ...contentOf(job), rewrittenText: resolved.text };
    return this.write(job, next, "edit", null, { ...resolved.sync, userVersion: job.version + 1 });
  }

  /** Brings back a kept version's texts and speakers as a new version (based on `baseVersion`). */
  async restore(job: JobRow, version: number, baseVersion: number): Promise<JobRow> {
    await limitWrites(this.deps, job.id);
    if (baseVersion !== job.version) throw conflict(job.version);
    if (job.status !== "completed")
      throw new AppError("JOB_NOT_READY", "The texts can be edited once the job is complete");
    const row = await this.repo.findVersion(job.id, version);
    if (!row) throw new AppError("NOT_FOUND", `No version ${version} of this transcription`);
    if (version === job.version) return job;
    // The texts and speakers come back; the title is the job's name, not part of its texts.
    // A restore is the user's write: the sync starts again from the restored texts.
    return this.write(job, { ...contentOf(row), title: job.title }, "restore", version, null);
  }

  /** The kept versions, newest first; a job never edited has its AI output as the one original. */
  async versions(job: JobRow): Promise<TranscriptVersionSummary[]> {
    const rows = await this.repo.versions(job.id);
    if (rows.length === 0) return [summaryOf(job, job, "original", null, job.createdAt, job.updatedAt)];
    return rows.map((r) => summaryOf(job, r, r.kind as VersionKind, r.restoredFrom, r.createdAt, r.updatedAt));
  }

  /** One kept version with its texts (the job itself for a job never edited). */
  async version(job: JobRow, version: number) {
    return versionWithTexts(this.repo, job, version);
  }

  /** The fidelity view of the job's interview text against its timed transcript. */
  async fidelity(job: JobRow): Promise<FidelityReport> {
    return fidelityOf(this.fidelityReports, job);
  }
}

/** The fidelity report of a job, kept by its version (its texts only change with the version). */
function fidelityOf(fidelity: FidelityService, job: JobRow): Promise<FidelityReport> {
  if (job.transcription === null) throw new AppError("JOB_NOT_READY", "The transcript is not written yet");
  const speakers = Array.isArray(job.speakers) ? (job.speakers as JobSpeaker[]) : [];
  const segments = Array.isArray(job.segments) ? (job.segments as TranscriptSegment[]) : [];
  return fidelity.report(`${job.id}:${job.version}:${job.updatedAt.getTime()}`, {
    raw: job.transcription,
    corrected: job.rewrittenText,
    options: {
      language: jobTextLanguage(job),
      speakerNames: speakers.map((s) => s.name),
      speakers: speakers.map((s) => ({ id: s.id, name: s.name })),
      glossary: glossaryOf(job.glossary),
      segments: segments.length
        ? segments.map((s) => ({ start: s.start, end: s.end, text: s.text, speaker: s.speaker }))
        : undefined,
    },
  });
}

/** One kept version with its texts (the job itself for a job never edited). */
async function versionWithTexts(repo: WorkspaceRepository, job: JobRow, version: number) {
  const row = await repo.findVersion(job.id, version);
  const source = row ?? (version === job.version ? job : null);
  if (!source) throw new AppError("NOT_FOUND", `No version ${version} of this transcription`);
  const c = contentOf(source);
  return {
    ...summaryOf(
      job,
      source,
      row ? (row.kind as VersionKind) : "original",
      row?.restoredFrom ?? null,
      source.createdAt,
      source.updatedAt,
    ),
    transcription: c.transcription,
    rewrittenText: c.rewrittenText,
    segments: c.segments ?? [],
    speakers: c.speakers ?? [],
  };
}

function summaryOf(
  job: JobRow,
  source: JobRow | VersionRow,
  kind: VersionKind,
  restoredFrom: number | null,
  createdAt: Date,
  updatedAt: Date,
): TranscriptVersionSummary {
  const version = "jobId" in source ? source.version : job.version;
  return {
    version,
    kind,
    restoredFrom,
    current: version === job.version,
    title: source.title ?? job.originalName,
    characterCount: charCount(source.rewrittenText ?? source.transcription ?? ""),
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

/**
 * Whether an edit based on an older version may go ahead: every version since is a sync of the
 * interview text (not the user's), and the edit does not send an interview text (which would undo it).
 */
function onlySyncedSince(
  sync: InterviewSync | null,
  body: { version: number; rewrittenText?: string },
  current: number,
) {
  return !!sync && body.version < current && body.version >= sync.userVersion && body.rewrittenText === undefined;
}

/**
 * The sync state after a write of the user's texts (version `version`). The first such write keeps the texts it started from, for the sync job to find the units in.
 */
function userWrote(sync: InterviewSync | null, before: JobRow, version: number): InterviewSync | null {
  const segments = Array.isArray(before.segments) ? (before.segments as TranscriptSegment[]) : [];
  if (!sync && (before.rewrittenText === null || segments.length === 0)) return null;
  const base: InterviewSync = sync ?? {
    state: "in-sync",
    userVersion: version,
    units: [],
    conflicts: [],
    keys: [],
    base: { segments, text: before.rewrittenText ?? "" },
  };
  const state = base.state === "updating" ? "updating" : base.conflicts.length ? "conflicts" : "in-sync";
  return { ...base, userVersion: version, state };
}
