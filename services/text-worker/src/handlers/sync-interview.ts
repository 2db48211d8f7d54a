/**
 * Brings a finished job's interview text up to its edited transcript (interview-sync.ts in shared):
 * the units whose words or speaker changed are written again by the job's own engine with the job's
 * settings, one turn at a time, and their paragraphs replaced, except where the user edited those
 * paragraphs by hand (a conflict, for the user to pick). Stored as a version of its own ("sync").
 *
 * Safe to run twice and to run late: it reads the job's latest state, does nothing unless the state
 * says "updating", and writes only if the job is still at the version it read (else it reads again).
 */
import {
  applySync,
  baselineOf,
  glossaryOf,
  hasVoices,
  type InterviewSync,
  type InterviewSyncJob,
  interviewSyncJobSchema,
  type JobSpeaker,
  jobTextLanguage,
  planSync,
  readSync,
  splitParagraphs,
  type TranscriptSegment,
} from "@kikitori/shared";
import type { Db, Prisma } from "@kikitori/shared/db";
import {
  contentOf,
  fill,
  type JobLike,
  type JobRow,
  jobLifecycle,
  keepVersion,
  type Logger,
  parseJobPayload,
  speakerLabels,
} from "@kikitori/shared/server";
import { matchLabel } from "../correction/format.ts";
import { withGlossary } from "../correction/glossary.ts";
import type { CorrectionEngine, CorrectionTurn, Role } from "../correction/port.ts";
import { correctionInput } from "./correct.ts";

export interface SyncDeps {
  db: Db;
  engine: CorrectionEngine;
  logger: Logger;
  now?: () => Date;
}

/** Reads again this many times when the job changed while its units were being written. */
const ATTEMPTS = 5;

export type SyncOutcome = { synced: true; updated: number; conflicts: number } | { synced: false; reason: string };

export async function processInterviewSync(deps: SyncDeps, job: JobLike<unknown>): Promise<SyncOutcome> {
  const p: InterviewSyncJob = parseJobPayload(interviewSyncJobSchema, job.data);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const row = await deps.db.transcriptionJob.findUnique({ where: { id: p.jobId } });
    if (row?.status !== "completed" || row.rewrittenText === null) {
      return { synced: false, reason: "job not complete or gone" };
    }
    const stored = readSync(row.interviewSync);
    if (stored?.state !== "updating") return { synced: false, reason: "nothing to bring up to date" };
    const result = await syncOnce(deps, row, stored);
    const saved = await deps.db.$transaction(async (tx) => {
      const moved = await jobLifecycle.synced(tx, row.id, row.version, {
        rewrittenText: result.text,
        interviewSync: result.sync as unknown as Prisma.InputJsonValue,
      });
      if (!moved) return false;
      const at = (deps.now ?? (() => new Date()))();
      const next = { ...contentOf(row), rewrittenText: result.text };
      await keepVersion(tx, row, next, { version: row.version + 1, kind: "sync", restoredFrom: null, at });
      return true;
    });
    if (saved) {
      deps.logger.info(
        {
          jobId: row.id,
          correlationId: p.correlationId,
          updated: result.updated,
          conflicts: result.sync.conflicts.length,
        },
        "interview text brought up to the transcript",
      );
      return { synced: true, updated: result.updated, conflicts: result.sync.conflicts.length };
    }
  }
  // Still changing under us: the next edit's job takes it from there.
  return { synced: false, reason: "the job kept changing" };
}

async function syncOnce(deps: SyncDeps, row: JobRow, stored: InterviewSync) {
  const language = jobTextLanguage(row);
  const segments = Array.isArray(row.segments) ? (row.segments as TranscriptSegment[]) : [];
  const speakers = Array.isArray(row.speakers) ? (row.speakers as JobSpeaker[]) : [];
  const opts = { language, speakers: speakers.map((s) => ({ id: s.id, name: s.name })) };
  // The units are found once, from the texts before the user's first edit.
  const sync: InterviewSync =
    stored.units.length === 0 && stored.base
      ? {
          ...baselineOf(stored.base.segments, stored.base.text, opts, stored.userVersion),
          conflicts: stored.conflicts,
        }
      : stored;
  const plan = planSync(sync, segments, language);
  const voices = hasVoices(segments);
  const labels = speakerLabels(row.language);
  const names = {
    interviewer: speakers.find((s) => s.role === "interviewer")?.name ?? (row.interviewer || labels.interviewer),
    interviewee: speakers.find((s) => s.role === "interviewee")?.name ?? (row.interviewee || labels.interviewee),
  };
  const written = new Map<number, string[]>();
  // Rewritten turns spell the job's glossary terms as the first correction did.
  const engine = withGlossary(deps.engine, glossaryOf(row.glossary));
  for (const region of plan.regions) {
    // The old unit in this place tells, without voices, whose words these are and whether they had a label.
    const old = sync.units[region.oldFrom]?.paragraphs[0] ?? null;
    const oldLabel = old === null ? null : (matchLabel(old)?.label ?? null);
    for (let i = region.newFrom; i < region.newTo; i++) {
      const unit = plan.units[i];
      if (!unit.source.trim()) {
        written.set(i, []);
        continue;
      }
      const turn = voices
        ? turnOf(unit.speaker, unit.source, speakers, labels)
        : flatTurn(unit.source, oldLabel, names);
      const input = correctionInput(row, unit.source, language, {
        speakers: speakers.length ? speakers : [],
        turns: [turn],
      });
      const { text } = await engine.correct({
        ...input,
        interviewer: names.interviewer,
        interviewee: names.interviewee,
      });
      let paragraphs = splitParagraphs(text).items;
      // A run without voices that had no label keeps none.
      if (!voices && old !== null && oldLabel === null && paragraphs[0]) {
        const m = matchLabel(paragraphs[0]);
        if (m) paragraphs = [m.rest, ...paragraphs.slice(1)].filter((x) => x.trim());
      }
      written.set(i, paragraphs);
    }
  }
  return applySync(sync, plan, segments, row.rewrittenText ?? "", written);
}

/** A speaker's turn (voices told apart): its part and name from the job's speakers. */
function turnOf(
  speaker: number | undefined,
  text: string,
  speakers: JobSpeaker[],
  labels: { other: string },
): CorrectionTurn {
  const s = speakers.find((x) => x.id === speaker);
  const role: Role | null = s?.role === "interviewer" || s?.role === "interviewee" ? s.role : null;
  return {
    speaker: speaker ?? 0,
    role,
    name: s?.name ?? fill(labels.other, { n: (speaker ?? 0) + 1 }),
    start: 0,
    end: 0,
    text,
  };
}

/** Without voices: the part is the one the old paragraph's label named (the interviewee when unlabelled). */
function flatTurn(
  text: string,
  oldLabel: string | null,
  names: { interviewer: string; interviewee: string },
): CorrectionTurn {
  const role: Role = oldLabel && oldLabel === names.interviewer ? "interviewer" : "interviewee";
  return { speaker: 0, role, name: names[role], start: 0, end: 0, text };
}
