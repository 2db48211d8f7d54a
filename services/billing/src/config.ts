import { commonEnv, envInt, parseConfig } from "@kikitori/shared/server";
import { z } from "zod";

export const billingEnv = z.object({
  ...commonEnv,
  /** Port and interface of the ops server (/healthz, /readyz, /metrics). */
  OPS_HOST: z.string().default("0.0.0.0"),
  OPS_PORT: envInt(3103, 0, 65535),
  /** Jobs processed at once on the billing queue. */
  WORKER_CONCURRENCY: envInt(1, 1, 16),
  /** How often the maintenance sweep (usage resets, scheduled plan changes) runs; default hourly. */
  BILLING_SWEEP_EVERY_MS: envInt(3_600_000, 1_000),
  /** Longest a graceful shutdown may take. */
  SHUTDOWN_TIMEOUT_MS: envInt(30_000, 1_000),
});

export type BillingConfig = z.infer<typeof billingEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): BillingConfig {
  return parseConfig("billing", billingEnv, env);
}
