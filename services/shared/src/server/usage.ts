import type { PlanName, PlanQuota, UsageRecord } from "../plans.ts";

export interface UsageRow {
  plan: PlanName;
  pendingPlan: PlanName | null;
  pendingPlanAt: Date | null;
  resetDate: Date;
  secondsUsed: number;
  summariesUsed: number;
  titleRunsUsed: number;
}

/** Builds the spec's usage record from a user row and the configured quotas. */
export function toUsageRecord(row: UsageRow, quotas: Record<PlanName, PlanQuota>): UsageRecord {
  const q = quotas[row.plan];
  return {
    totalMinutesUsed: Math.round((row.secondsUsed / 60) * 100) / 100,
    maxMinutes: q.maxMinutes,
    summarizeUsage: row.summariesUsed,
    maxSummaryUsage: q.maxSummaries,
    titlesAndHeadingsUsage: row.titleRunsUsed,
    maxTitlesAndHeadingsUsage: q.maxTitleRuns,
    resetDate: row.resetDate.toISOString(),
    plan: row.plan,
    pendingPlan:
      row.pendingPlan && row.pendingPlanAt ? { plan: row.pendingPlan, date: row.pendingPlanAt.toISOString() } : null,
  };
}
