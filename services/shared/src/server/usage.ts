import { PLAN_CATALOGUE, type PlanName, type PlanQuota, planQuota, type UsageRecord } from "../plans.ts";
import { dueChanges } from "./reset.ts";

export interface UsageRow {
  plan: PlanName;
  pendingPlan: PlanName | null;
  pendingPlanAt: Date | null;
  periodStart: Date;
  resetDate: Date;
  anchorDay: number;
  secondsUsed: number;
  summariesUsed: number;
  titleRunsUsed: number;
}

/**
 * The usage as it stands at `now`. The billing service's sweep writes resets down (hourly); between
 * a reset date and the next sweep, a reader sees what the sweep is about to write: a new period with
 * zero counters and any due plan switch applied.
 */
export function effectiveUsage(row: UsageRow, now: Date): UsageRow {
  const { due, data } = dueChanges(row, now);
  return due ? { ...row, ...data } : row;
}

/** Builds the usage record of GET /api/user-usage (`usageRecordSchema`) from a user row and the configured quotas. */
export function toUsageRecord(row: UsageRow, quotas: Record<PlanName, PlanQuota>, now = new Date()): UsageRecord {
  const u = effectiveUsage(row, now);
  const q = planQuota(quotas, u.plan);
  return {
    totalMinutesUsed: Math.round((u.secondsUsed / 60) * 100) / 100,
    maxMinutes: q.maxMinutes,
    summarizeUsage: u.summariesUsed,
    maxSummaryUsage: q.maxSummaries,
    titlesAndHeadingsUsage: u.titleRunsUsed,
    maxTitlesAndHeadingsUsage: q.maxTitleRuns,
    resetDate: u.resetDate.toISOString(),
    plan: u.plan,
    pendingPlan: u.pendingPlan && u.pendingPlanAt ? { plan: u.pendingPlan, date: u.pendingPlanAt.toISOString() } : null,
    maxUploadBytes: PLAN_CATALOGUE.maxUploadBytes(u.plan),
  };
}
