import type { Db } from "@kikitori/shared/db";
import { rollPeriod } from "@kikitori/shared/server";

/** The columns a reset reads; the update is guarded on the two that decide what is due. */
export interface ResetSnapshot {
  id: string;
  periodStart: Date;
  resetDate: Date;
  anchorDay: number;
  pendingPlan: "free" | "standard" | "premium" | null;
  pendingPlanAt: Date | null;
}

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

const SNAPSHOT = {
  id: true,
  periodStart: true,
  resetDate: true,
  anchorDay: true,
  pendingPlan: true,
  pendingPlanAt: true,
} as const;

/**
 * Applies what is due for one user at `now`, in one guarded UPDATE: the period rolls forward by
 * whole anchored months until the reset date is after `now` and the counters go to zero; a plan
 * change scheduled at or before `now` takes effect. The row is only written when its reset date and
 * scheduled change are still those of the snapshot, so a concurrent run (or a plan change made in
 * between) cannot reset twice. Returns what was applied, or null when the guard did not match.
 */
export async function resetUser(
  db: Db,
  u: ResetSnapshot,
  now: Date,
): Promise<{ periodReset: boolean; planApplied: boolean } | null> {
  const rolled = rollPeriod(u, now);
  const pendingDue = u.pendingPlanAt !== null && u.pendingPlanAt.getTime() <= now.getTime();
  if (rolled.months === 0 && !pendingDue) return { periodReset: false, planApplied: false };
  const { count } = await db.user.updateMany({
    where: { id: u.id, resetDate: u.resetDate, pendingPlanAt: u.pendingPlanAt, pendingPlan: u.pendingPlan },
    data: {
      ...(rolled.months > 0
        ? {
            periodStart: rolled.periodStart,
            resetDate: rolled.resetDate,
            secondsUsed: 0,
            summariesUsed: 0,
            titleRunsUsed: 0,
          }
        : {}),
      ...(pendingDue
        ? { ...(u.pendingPlan ? { plan: u.pendingPlan } : {}), pendingPlan: null, pendingPlanAt: null }
        : {}),
    },
  });
  if (count === 0) return null;
  return { periodReset: rolled.months > 0, planApplied: pendingDue && u.pendingPlan !== null };
}

/**
 * The monthly usage reset: every user whose reset date is at or before `now` gets a new period
 * (see resetUser), and scheduled plan changes that are due take effect. Idempotent: a second run
 * for the same `now` finds nothing due and changes nothing. Users are read in id order, in batches.
 */
export async function resetDuePeriods(db: Db, now: Date, opts: { batchSize?: number } = {}): Promise<ResetResult> {
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
      select: SNAPSHOT,
    });
    for (const u of users) {
      result.due++;
      const applied = await resetUser(db, u, now);
      if (!applied) {
        result.skipped++;
        continue;
      }
      if (applied.periodReset) result.periodsReset++;
      if (applied.planApplied) result.plansApplied++;
    }
    if (users.length < batchSize) break;
    after = users[users.length - 1].id;
  }
  return result;
}
