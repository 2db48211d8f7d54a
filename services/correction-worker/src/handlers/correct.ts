import { type CorrectionJob, correctionJobSchema, type ProgressEnvelope } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { type JobLike, type Logger, markJobFailed, parseJobPayload, speakerLabels } from "@kikitori/shared/server";
import type { CorrectionEngine, CorrectionTone } from "../correction/types.ts";

/** Everything the correction step touches, injected so tests can pass their own. */
export interface CorrectionDeps {
  db: Db;
  engine: CorrectionEngine;
  /** Publishes one progress update for the gateways to fan out (publishProgress bound to Redis). */
  publish: (envelope: ProgressEnvelope) => Promise<unknown>;
  logger: Logger;
  now?: () => Date;
}

export type CorrectionResult = { rewrittenText: string; correctionTime: number } | { skipped: string };

/** Correction progress while sections finish: 1 to 99 (0 is "started", 100 is "complete"). */
export function sectionProgress(done: number, total: number): number {
  if (total <= 0) return 1;
  return Math.max(1, Math.min(99, Math.floor((99 * done) / total)));
}

/**
 * One job of QUEUES.correction: the stored transcript becomes a clean interview text, section by
 * section. Finished sections are kept in Postgres, so a retried job resumes where it stopped; a
 * finished job returns its stored result. Progress goes out per section.
 */
export async function processCorrection(deps: CorrectionDeps, job: JobLike<unknown>): Promise<CorrectionResult> {
  const p: CorrectionJob = parseJobPayload(correctionJobSchema, job.data);
  const now = deps.now ?? (() => new Date());
  const row = await deps.db.transcriptionJob.findUnique({ where: { id: p.jobId } });
  if (!row) return { skipped: "job no longer exists (account deleted?)" };
  if (row.rewrittenText !== null && row.correctionTime !== null) {
    return { rewrittenText: row.rewrittenText, correctionTime: row.correctionTime };
  }
  if (row.transcription === null) return { skipped: "no transcript yet" };

  const started = row.correctionStartedAt ?? now();
  const send = (event: ProgressEnvelope["event"]) =>
    deps.publish({ userId: p.userId, correlationId: p.correlationId, event });
  if (!row.correctionStartedAt) {
    await deps.db.transcriptionJob.update({
      where: { id: p.jobId },
      data: { correctionStartedAt: started, correctionProgress: 0, correctionEngine: deps.engine.name },
    });
    await send({ jobId: p.jobId, status: "Correction started", correctionProgress: 0 });
  }

  const done = await deps.db.correctionSection.findMany({ where: { jobId: p.jobId } });
  const resume = new Map(done.map((s) => [s.index, s.text]));
  const result = await deps.engine.correct(
    {
      transcript: row.transcription,
      // The recording's language (detected or chosen at upload); the interface language only when unknown.
      language: row.detectedLanguage ?? (row.audioLanguage === "auto" ? row.language : row.audioLanguage),
      interviewer: row.interviewer,
      interviewee: row.interviewee,
      tone: (row.tone as CorrectionTone | null) ?? null,
      interviewExample: row.interviewExample,
      fileType: row.model,
      labels: speakerLabels(row.language),
    },
    {
      resume,
      onSection: async (index, text, doneCount, total) => {
        await deps.db.correctionSection.upsert({
          where: { jobId_index: { jobId: p.jobId, index } },
          create: { jobId: p.jobId, index, text },
          update: {},
        });
        const progress = sectionProgress(doneCount, total);
        await deps.db.transcriptionJob.update({ where: { id: p.jobId }, data: { correctionProgress: progress } });
        await send({ jobId: p.jobId, status: "Correction in progress", correctionProgress: progress });
      },
    },
  );

  const finished = row.correctionDoneAt ?? now();
  const correctionTime = Math.round(((finished.getTime() - started.getTime()) / 1000) * 100) / 100;
  await deps.db.transcriptionJob.updateMany({
    where: { id: p.jobId, rewrittenText: null },
    data: {
      status: "completed",
      rewrittenText: result.text,
      correctionTime,
      correctionDoneAt: finished,
      correctionProgress: 100,
      errorCode: null,
      errorMessage: null,
      failedStage: null,
    },
  });
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
  return { rewrittenText: result.text, correctionTime };
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
    from: "correcting",
  });
}
