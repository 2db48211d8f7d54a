import type { Db, Prisma } from "./db.ts";

/**
 * Life of a text_runs row (summary or title/heading generation). The quota is reserved before the
 * run is created (reserveCount); exactly one of these transitions ends it:
 * - the worker stores the result: running → succeeded (the reservation becomes the charge);
 * - the worker fails for good, or the gateway stops waiting: running → failed / timed_out, and the
 *   reservation is given back in the same SQL statement.
 * Both are guarded by `status = 'running'`, so a late result after a time-out is dropped rather than
 * charged, and a run is never released twice.
 */
export const TEXT_RUN_STATUS = {
  running: "running",
  succeeded: "succeeded",
  failed: "failed",
  timedOut: "timed_out",
} as const;
export type TextRunStatus = (typeof TEXT_RUN_STATUS)[keyof typeof TEXT_RUN_STATUS];

/** A run the gateway has reserved quota for and is about to queue: running. */
export async function createTextRun(
  db: Db,
  run: Omit<Prisma.TextRunUncheckedCreateInput, "status" | "result" | "completedAt">,
): Promise<void> {
  await db.textRun.create({ data: { ...run, status: TEXT_RUN_STATUS.running } });
}

/**
 * Ends a running run without a result and gives its reserved count back, atomically. Returns false
 * when the run was no longer running (already finished, failed or cancelled): nothing changes then.
 */
export async function failTextRun(
  db: Db,
  runId: string,
  status: "failed" | "timed_out",
  errorCode: string,
  durationMs?: number,
): Promise<boolean> {
  const rows = await db.$queryRawUnsafe<Array<{ id: string }>>(
    `WITH ended AS (
       UPDATE "text_runs"
          SET "status" = $2, "error_code" = $3, "duration_ms" = $4, "completed_at" = now()
        WHERE "id" = $1::uuid AND "status" = 'running'
        RETURNING "user_id", "kind"
     )
     UPDATE "users" AS u
        SET "summaries_used" = CASE WHEN ended."kind" = 'summary' THEN GREATEST(u."summaries_used" - 1, 0) ELSE u."summaries_used" END,
            "title_runs_used" = CASE WHEN ended."kind" = 'titles' THEN GREATEST(u."title_runs_used" - 1, 0) ELSE u."title_runs_used" END,
            "updated_at" = now()
       FROM ended
      WHERE u."id" = ended."user_id"
      RETURNING u."id"`,
    runId,
    status,
    errorCode.slice(0, 64),
    durationMs ?? null,
  );
  return rows.length === 1;
}

/** Stores a run's result, only while it is still running. False when it was cancelled meanwhile. */
export async function completeTextRun(
  db: Db,
  runId: string,
  result: Prisma.InputJsonObject,
  engine: string,
  durationMs: number,
): Promise<boolean> {
  const res = await db.textRun.updateMany({
    where: { id: runId, status: TEXT_RUN_STATUS.running },
    data: {
      status: TEXT_RUN_STATUS.succeeded,
      result,
      engine: engine.slice(0, 64),
      durationMs,
      completedAt: new Date(),
    },
  });
  return res.count === 1;
}

/** Object key of a run's input (under the user's prefix, so deleting the account removes it). */
export function textInputKey(userId: string, runId: string): string {
  return `users/${userId}/text/${runId}.json`;
}
