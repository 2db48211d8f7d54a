import type { Db } from "./db.ts";
import { rollPeriod } from "./period.ts";

/** The columns a reset reads; the update is guarded on the two that decide what is due. */
export interface ResetSnapshot {
  id: string;
  periodStart: Date;
  resetDate: Date;
  anchorDay: number;
  pendingPlan: "free" | "standard" | "premium" | null;
  pendingPlanAt: Date | null;
}

export const RESET_SNAPSHOT = {
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
): Promise<{ periodReset: boolean; planApplied: boolean; resetDate: Date } | null> {
  const rolled = rollPeriod(u, now);
  const pendingDue = u.pendingPlanAt !== null && u.pendingPlanAt.getTime() <= now.getTime();
  if (rolled.months === 0 && !pendingDue) return { periodReset: false, planApplied: false, resetDate: u.resetDate };
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
  return {
    periodReset: rolled.months > 0,
    planApplied: pendingDue && u.pendingPlan !== null,
    resetDate: rolled.months > 0 ? rolled.resetDate : u.resetDate,
  };
}
