import { z } from "zod";

export const PLANS = ["free", "standard", "premium"] as const;
export const planSchema = z.enum(PLANS);
export type PlanName = z.infer<typeof planSchema>;

export interface PlanQuota {
  maxMinutes: number;
  maxSummaries: number;
  maxTitleRuns: number;
}

/** Defaults; every service reads the real values from its config (PLAN_<PLAN>_<QUOTA>). */
export const DEFAULT_QUOTAS: Record<PlanName, PlanQuota> = {
  free: { maxMinutes: 30, maxSummaries: 3, maxTitleRuns: 3 },
  standard: { maxMinutes: 600, maxSummaries: 100, maxTitleRuns: 100 },
  premium: { maxMinutes: 1800, maxSummaries: 500, maxTitleRuns: 500 },
};

/** The spec's usage record (GET /api/user-usage). */
export const usageRecordSchema = z.object({
  totalMinutesUsed: z.number(),
  maxMinutes: z.number(),
  titlesAndHeadingsUsage: z.number().int(),
  maxTitlesAndHeadingsUsage: z.number().int(),
  summarizeUsage: z.number().int(),
  maxSummaryUsage: z.number().int(),
  resetDate: z.string(),
  plan: planSchema,
  pendingPlan: z.object({ plan: planSchema, date: z.string() }).nullable(),
});
export type UsageRecord = z.infer<typeof usageRecordSchema>;
