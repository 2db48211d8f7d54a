// The text tools' rows in Postgres: the month's run counts on `users` (reserved before a run, given
// back when it ends without a result) and the `text_runs` rows, whose writes all go through
// services/shared/src/server/text-runs.ts.
import type { PlanName, PlanQuota } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { createTextRun, failTextRun, releaseCount, reserveCount } from "@kikitori/shared/server";
import type { TextRunRepository } from "./usecases.ts";

export function textRunRepository(db: Db, quotas: Record<PlanName, PlanQuota>): TextRunRepository {
  return {
    reserve: (userId, kind) => reserveCount(db, userId, kind, quotas),
    release: (userId, kind) => releaseCount(db, userId, kind),
    create: async (run) => {
      await createTextRun(db, run);
    },
    fail: (runId, status, errorCode, durationMs) => failTextRun(db, runId, status, errorCode, durationMs),
    find: (runId) =>
      db.textRun.findUnique({ where: { id: runId }, select: { status: true, result: true, errorCode: true } }),
  };
}
