import { type BillingJob, billingJobSchema } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { type JobLike, type Logger, parseJobPayload } from "@kikitori/shared/server";
import type { BillingService } from "../service.ts";
import { runSweep, type SweepResult } from "../sweep.ts";

export interface MaintenanceDeps {
  db: Db;
  billing: BillingService;
  logger: Logger;
  /** The clock; tests pass a fixed one. */
  now: () => Date;
}

/** One run of the billing maintenance job (QUEUES.billing, "daily-maintenance"): resets, switches, renewals. */
export async function processMaintenance(deps: MaintenanceDeps, job: JobLike<unknown>): Promise<SweepResult> {
  const payload: BillingJob = parseJobPayload(billingJobSchema, job.data);
  const now = deps.now();
  const result = await runSweep(deps.db, deps.billing, now);
  deps.logger.info({ kind: payload.kind, at: now.toISOString(), ...result }, "maintenance run finished");
  return result;
}

export function createMaintenanceProcessor(deps: MaintenanceDeps): (job: JobLike<unknown>) => Promise<SweepResult> {
  return (job) => processMaintenance(deps, job);
}
