import type { Db } from "@kikitori/shared/db";
import { type ResetResult, resetDuePeriods } from "./reset.ts";
import type { BillingService, RenewResult } from "./service.ts";

export interface SweepResult {
  resets: ResetResult;
  renewals: RenewResult;
  /** Upgrades abandoned in 3-D Secure whose period has ended. */
  expired: number;
}

/**
 * One maintenance run at `now`, in this order: usage resets and due plan switches (a scheduled
 * downgrade applies before its period is charged), then renewals of paid plans, then abandoned
 * payments. Every step is idempotent: a second run for the same `now` finds nothing to do.
 */
export async function runSweep(db: Db, billing: BillingService, now: Date): Promise<SweepResult> {
  const resets = await resetDuePeriods(db, now, {
    onPlanApplied: (uid, plan, nextReset) => billing.notify({ kind: "planSwitched", uid, plan, nextReset }),
  });
  const renewals = await billing.renewDue(now);
  const expired = await billing.expireAbandoned(now);
  return { resets, renewals, expired };
}
