import {
  type CorrectionJob,
  correctionJobSchema,
  glossaryOf,
  isSpacelessLanguage,
  type JobSpeaker,
  jobTextLanguage,
  type ProgressEnvelope,
  type StepOutcome,
  type TranscriptSegment,
  turnsFromSegments,
} from "@kikitori/shared";
import type { Db, Prisma } from "@kikitori/shared/db";
import {
  fill,
  handBackJob,
  type JobControl,
  type JobLike,
  jobLifecycle,
  type Logger,
  markJobFailed,
  parseJobPayload,
  type StepStore,
  speakerLabels,
} from "@kikitori/shared/server";
import type { Job } from "bullmq";
import { withGlossary } from "../correction/glossary.ts";
import type { CorrectionEngine, CorrectionInput, CorrectionTone, CorrectionTurn } from "../correction/port.ts";
import { correctionTurns, decideSpeakers } from "../correction/speaker-turns.ts";
import { StoppedAtBoundary } from "../correction/steps.ts";

/** Everything the correction step touches, injected so tests can pass their own. */
export interface CorrectionDeps {
  db: Db;
  engine: CorrectionEngine;
  /** Publishes one progress update for the gateways to fan out (publishProgress bound to Redis). */
  publish: (envelope: ProgressEnvelope) => Promise<unknown>;
  logger: Logger;
  now?: () => Date;
  /** Puts the job back in its queue during a shutdown (handBackJob by default); always throws. */
  handBack?: (job: JobLike<unknown>, token: string | undefined) => Promise<never>;
}

/** How one run of a job was started: the worker's lock token and its shutdown signals. */
export interface CorrectionRun {
  token?: string;
  control?: JobControl;
}

/** Correction progress while sections finish: 1 to 99 (0 is "started", 100 is "complete"). */
export function sectionProgress(done: number, total: number): number {
  if (total <= 0) return 1;
  return Math.max(1, Math.min(99, Math.floor((99 * done) / total)));
}

/**
 * One job of QUEUES.correction: the stored transcript becomes a clean interview text, section by
 * section. Each section is a resumable step kept in Postgres (correctionSections), so a retried job
 * resumes where it stopped and no section is corrected (or paid for) twice; a finished job returns
 * its stored result. Progress goes out per section.
 *
 * When the worker shuts down (run.control.stopping), the section in hand finishes and is stored,
 * no further one starts, and the job goes back to the queue (not failed, no attempt used) for
 * another worker to resume from the stored sections; the row stays "correcting" with its progress.
 * If the shutdown's time runs out first (run.control.signal), the section in hand is given up and
 * the job goes back all the same.
 */
export async function processCorrection(
  deps: CorrectionDeps,
  job: JobLike<unknown>,
  run: CorrectionRun = {},
): Promise<StepOutcome> {
  const p: CorrectionJob = parseJobPayload(correctionJobSchema, job.data);
  const skipped = (reason: string): StepOutcome => ({ step: "skipped", jobId: p.jobId, reason });
  const corrected: StepOutcome = {
    step: "corrected",
    jobId: p.jobId,
    userId: p.userId,
    correlationId: p.correlationId,
  };
  const now = deps.now ?? (() => new Date());
  const row = await deps.db.transcriptionJob.findUnique({ where: { id: p.jobId } });
  if (!row) return skipped("job no longer exists (account deleted?)");
  if (row.rewrittenText !== null && row.correctionTime !== null) return corrected;
  if (row.transcription === null) return skipped("no transcript yet");

  const started = row.correctionStartedAt ?? now();
  const send = (event: ProgressEnvelope["event"]) =>
    deps.publish({ userId: p.userId, correlationId: p.correlationId, event });
  if (
    !row.correctionStartedAt &&
    (await jobLifecycle.startCorrection(deps.db, p.jobId, { startedAt: started, engine: deps.engine.name }))
  ) {
    await send({ jobId: p.jobId, status: "Correction started", correctionProgress: 0 });
  }

  // The recording's language (detected or chosen at upload); the interface language only when unknown.
  const language = jobTextLanguage(row);
  const heard = heardSpeakers(row, language);
  if (heard) {
    await jobLifecycle.nameSpeakers(deps.db, p.jobId, heard.speakers as unknown as Prisma.InputJsonValue);
  }

  const steps = correctionSections(deps.db, p.jobId);
  const transcript = row.transcription;
  const engine = withGlossary(deps.engine, glossaryOf(row.glossary));
  const result = await correctOrHandBack(deps, job, run, p, steps, () =>
    engine.correct(correctionInput(row, transcript, language, heard), {
      steps,
      stop: run.control?.stopping,
      signal: run.control?.signal,
      onSection: async (_index, _text, doneCount, total) => {
        const progress = sectionProgress(doneCount, total);
        await jobLifecycle.correctionProgress(deps.db, p.jobId, progress);
        await send({ jobId: p.jobId, status: "Correction in progress", correctionProgress: progress });
      },
    }),
  );

  const finished = row.correctionDoneAt ?? now();
  const correctionTime = Math.round(((finished.getTime() - started.getTime()) / 1000) * 100) / 100;
  const completed = await jobLifecycle.completed(deps.db, p.jobId, {
    rewrittenText: result.text,
    correctionTime,
    doneAt: finished,
  });
  // Failed or deleted meanwhile: it stays as it is (a stale run never moves it back).
  if (!completed) return skipped("job no longer correcting");
  await send({
    jobId: p.jobId,
    status: "Correction complete",
    correctionProgress: 100,
    rewrittenText: result.text,
    correctionTime,
  });
  deps.logger.info(
    { jobId: p.jobId, correlationId: p.correlationId, correctionTime, sections: result.sections.length },
    "correction complete",
  );
  return corrected;
}

/**
 * The job's corrected sections, kept in Postgres (correction_sections) by index: the steps of its
 * correction. The first text stored for a section stays. `count` is how many were found or stored.
 */
export function correctionSections(db: Db, jobId: string): StepStore<string, number> & { count: number } {
  const seen = new Set<number>();
  return {
    get count() {
      return seen.size;
    },
    async get(index) {
      const row = await db.correctionSection.findUnique({ where: { jobId_index: { jobId, index } } });
      if (row) seen.add(index);
      return row?.text;
    },
    async put(index, text) {
      const row = await db.correctionSection.upsert({
        where: { jobId_index: { jobId, index } },
        create: { jobId, index, text },
        update: {},
      });
      seen.add(index);
      return row.text;
    },
  };
}

/** What the engine is given for a job's transcript (or, for a sync, some of its turns): the job's settings. */
export function correctionInput(
  row: {
    interviewer: string;
    interviewee: string;
    tone: string | null;
    interviewExample: string;
    model: string;
    language: string;
  },
  transcript: string,
  language: string,
  heard: { speakers: JobSpeaker[]; turns: CorrectionTurn[] } | null,
): CorrectionInput {
  return {
    transcript,
    language,
    turns: heard?.turns,
    // Names as the speakers carry them (renamed ones included), else the upload's.
    interviewer: heard?.speakers.find((s) => s.role === "interviewer")?.name ?? row.interviewer,
    interviewee: heard?.speakers.find((s) => s.role === "interviewee")?.name ?? row.interviewee,
    tone: (row.tone as CorrectionTone | null) ?? null,
    interviewExample: row.interviewExample,
    fileType: row.model,
    labels: speakerLabels(row.language),
  };
}

/**
 * Runs the correction; when it ends because the worker is shutting down (stopped at a section
 * boundary, or cancelled once the shutdown's time ran out), hands the job back to the queue.
 */
async function correctOrHandBack<R>(
  deps: CorrectionDeps,
  job: JobLike<unknown>,
  run: CorrectionRun,
  p: CorrectionJob,
  stored: { readonly count: number },
  correct: () => Promise<R>,
): Promise<R> {
  try {
    return await correct();
  } catch (err) {
    const stopping = run.control?.stopping.aborted ?? false;
    const cancelled = run.control?.signal.aborted ?? false;
    if (!(err instanceof StoppedAtBoundary) && !(stopping && cancelled)) throw err;
    deps.logger.info(
      {
        jobId: p.jobId,
        correlationId: p.correlationId,
        sectionsStored: stored.count,
        ...(err instanceof StoppedAtBoundary ? { sections: err.total } : {}),
        cutShort: !(err instanceof StoppedAtBoundary),
      },
      err instanceof StoppedAtBoundary
        ? "correction paused between sections for shutdown; handing the job back"
        : "shutdown time used up: the section in hand was given up; handing the job back",
    );
    const handBack = deps.handBack ?? ((j, token) => handBackJob(j as Job, token));
    return handBack(job, run.token);
  }
}

/**
 * The speakers told apart by the diarization and the turns they spoke, named (decideSpeakers), when
 * the recording has at least two; null otherwise (the engines then tell turns from the words). A
 * speaker renamed before (a re-run) keeps the name it was given.
 */
export function heardSpeakers(
  row: {
    segments: unknown;
    interviewer: string;
    interviewee: string;
    language: string;
    speakers: unknown;
  },
  audioLanguage: string,
): { speakers: JobSpeaker[]; turns: CorrectionTurn[] } | null {
  const segments = Array.isArray(row.segments) ? (row.segments as TranscriptSegment[]) : [];
  if (!segments.some((s) => s.speaker !== undefined)) return null;
  const turns = turnsFromSegments(segments, isSpacelessLanguage(audioLanguage));
  if (new Set(turns.map((t) => t.speaker)).size < 2) return null;
  const labels = speakerLabels(row.language);
  const decided = decideSpeakers(turns, {
    interviewer: row.interviewer || labels.interviewer,
    interviewee: row.interviewee || labels.interviewee,
    other: (n) => fill(labels.other, { n }),
  });
  const kept = Array.isArray(row.speakers) ? (row.speakers as JobSpeaker[]) : [];
  const speakers = kept.length ? decided.map((s) => kept.find((k) => k.id === s.id) ?? s) : decided;
  return { speakers, turns: correctionTurns(turns, speakers) };
}

/**
 * A correction that failed for good: the job is marked failed at the correction stage (the
 * transcript stays available) and the owner is told.
 */
export async function reportCorrectionFailure(
  deps: Pick<CorrectionDeps, "publish" | "logger" | "db">,
  job: JobLike<unknown>,
  err: unknown,
): Promise<void> {
  const parsed = correctionJobSchema.safeParse(job.data);
  if (!parsed.success) {
    deps.logger.warn({ jobId: job.id }, "failed job has no valid payload; nobody to notify");
    return;
  }
  await markJobFailed(deps, parsed.data, err, {
    name: "correction",
    internalCode: "CORRECTION_FAILED",
    from: ["correcting"],
  });
}
