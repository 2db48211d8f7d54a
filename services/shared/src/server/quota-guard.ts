import type { PlanName, PlanQuota } from "../plans.ts";

/**
 * The quota guard in SQL (migration 20261128000800_quota_verdict): whether a user's plan still has
 * `seconds` of transcription this period, with every in-flight upload's reservation counted and the
 * user's row locked until the calling transaction ends. The only check that decides a reservation;
 * quota.ts (withReservedSeconds, underQuota) and job-lifecycle.ts (createUnderQuota) call it.
 */
export type QuotaVerdict = "ok" | "short" | "due" | "no-user" | "no-plan";

export interface QuotaGuard {
  userId: string;
  /** Seconds to hold (chargeableSeconds of the recording). */
  seconds: number;
  /** Every plan's quotas (quotasFromConfig): the guard reads the monthly minutes of the user's plan. */
  quotas: Readonly<Record<PlanName, PlanQuota>>;
  /** A reset or plan change due at or before this moment makes the verdict 'due'. */
  at: Date;
}

/** The guard's call, its four parameters numbered from `$first` (their values: quotaGuardParams). */
export const quotaVerdictSql = (first: number): string =>
  `"kikitori_quota_verdict"($${first}::uuid, $${first + 1}::int, $${first + 2}::jsonb, $${first + 3}::timestamptz)`;

export const quotaGuardParams = (g: QuotaGuard): [string, number, string, Date] => [
  g.userId,
  g.seconds,
  JSON.stringify(Object.fromEntries(Object.entries(g.quotas).map(([plan, q]) => [plan, q.maxMinutes]))),
  g.at,
];
