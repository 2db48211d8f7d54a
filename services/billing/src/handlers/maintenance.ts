import { type BillingJob, billingJobSchema } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { type JobLike, type Logger, parseJobPayload } from "@kikitori/shared/server";
import { type ResetResult, resetDuePeriods } from "../reset.ts";

export interface MaintenanceDeps {
  db: Db;
  logger: Logger;
  /** The clock; tests pass a fixed one. */
  now: () => Date;
}

/** One run of the billing maintenance job (QUEUES.billing, "daily-maintenance"): usage resets. */
export async function processMaintenance(deps: MaintenanceDeps, job: JobLike<unknown>): Promise<ResetResult> {
  const payload: BillingJob = parseJobPayload(billingJobSchema, job.data);
  const now = deps.now();
  const result = await resetDuePeriods(deps.db, now);
  deps.logger.info({ kind: payload.kind, at: now.toISOString(), ...result }, "maintenance run finished");
  return result;
}

export function createMaintenanceProcessor(deps: MaintenanceDeps): (job: JobLike<unknown>) => Promise<ResetResult> {
  return (job) => processMaintenance(deps, job);
}
