import type { PlanName } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { RESET_SNAPSHOT, resetUser } from "@kikitori/shared/server";

export interface ResetResult {
  /** Users found with a reset or a scheduled plan change due. */
  due: number;
  /** Users whose usage period was rolled forward (counters zeroed). */
  periodsReset: number;
  /** Users whose scheduled plan change took effect. */
  plansApplied: number;
  /** Users changed by someone else between read and write; picked up by the next run. */
  skipped: number;
}

/**
 * The monthly usage reset: every user whose reset date is at or before `now` gets a new period
 * (see resetUser), and scheduled plan changes that are due take effect. Idempotent: a second run
 * for the same `now` finds nothing due and changes nothing. Users are read in id order, in batches.
 */
export async function resetDuePeriods(
  db: Db,
  now: Date,
  opts: {
    batchSize?: number;
    /** Called after a scheduled plan change took effect (the plan-change e-mail). */
    onPlanApplied?: (uid: string, plan: PlanName, nextReset: Date) => Promise<void>;
  } = {},
): Promise<ResetResult> {
  const batchSize = opts.batchSize ?? 500;
  const result: ResetResult = { due: 0, periodsReset: 0, plansApplied: 0, skipped: 0 };
  let after: string | undefined;
  for (;;) {
    const users = await db.user.findMany({
      where: {
        OR: [{ resetDate: { lte: now } }, { pendingPlanAt: { lte: now } }],
        ...(after ? { id: { gt: after } } : {}),
      },
      orderBy: { id: "asc" },
      take: batchSize,
      select: RESET_SNAPSHOT,
    });
    for (const u of users) {
      result.due++;
      const applied = await resetUser(db, u, now);
      if (!applied) {
        result.skipped++;
        continue;
      }
      if (applied.periodReset) result.periodsReset++;
      if (applied.planApplied && u.pendingPlan) {
        result.plansApplied++;
        await opts.onPlanApplied?.(u.id, u.pendingPlan, applied.resetDate);
      }
    }
    if (users.length < batchSize) break;
    after = users[users.length - 1].id;
  }
  return result;
}
