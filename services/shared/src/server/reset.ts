import type { PlanName } from "../plans.ts";
import type { Db } from "./db.ts";
import { rollPeriod } from "./period.ts";

/** The columns a reset reads; the update is guarded on the two that decide what is due. */
export interface ResetSnapshot {
  id: string;
  periodStart: Date;
  resetDate: Date;
  anchorDay: number;
  pendingPlan: PlanName | null;
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
 * What is due for a user row at `now`, as the fields a reset writes: the period rolls forward by
 * whole anchored months until the reset date is after `now` and the counters go to zero; a plan
 * change scheduled at or before `now` takes effect. `due` is false (and `data` empty) when nothing is.
 * Pure: the sweep writes it (resetUser) and readers show it before the sweep has run (effectiveUsage).
 */
export function dueChanges(u: Omit<ResetSnapshot, "id">, now: Date) {
  const rolled = rollPeriod(u, now);
  const periodReset = rolled.months > 0;
  const pendingDue = u.pendingPlanAt !== null && u.pendingPlanAt.getTime() <= now.getTime();
  const data: {
    periodStart?: Date;
    resetDate?: Date;
    secondsUsed?: number;
    summariesUsed?: number;
    titleRunsUsed?: number;
    plan?: PlanName;
    pendingPlan?: null;
    pendingPlanAt?: null;
  } = {
    ...(periodReset
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
  };
  return {
    due: periodReset || pendingDue,
    data,
    periodReset,
    planApplied: pendingDue && u.pendingPlan !== null,
    resetDate: periodReset ? rolled.resetDate : u.resetDate,
  };
}

/**
 * Writes what is due for one user at `now` (dueChanges) in one guarded UPDATE. The row is only
 * written when its reset date and scheduled change are still those of the snapshot, so a concurrent
 * run (or a plan change made in between) cannot reset twice. Returns what was applied, or null when
 * the guard did not match.
 */
export async function resetUser(
  db: Db,
  u: ResetSnapshot,
  now: Date,
): Promise<{ periodReset: boolean; planApplied: boolean; resetDate: Date } | null> {
  const { due, data, periodReset, planApplied, resetDate } = dueChanges(u, now);
  if (!due) return { periodReset, planApplied, resetDate };
  const { count } = await db.user.updateMany({
    where: { id: u.id, resetDate: u.resetDate, pendingPlanAt: u.pendingPlanAt, pendingPlan: u.pendingPlan },
    data,
  });
  if (count === 0) return null;
  return { periodReset, planApplied, resetDate };
}
