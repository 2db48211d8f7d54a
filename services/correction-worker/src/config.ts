import { commonEnv, envInt, parseConfig } from "@kikitori/shared/server";
import { z } from "zod";

export const correctionWorkerEnv = z.object({
  ...commonEnv,
  /** Port and interface of the ops server (/healthz, /readyz, /metrics). */
  OPS_HOST: z.string().default("0.0.0.0"),
  OPS_PORT: envInt(3102, 0, 65535),
  /** Jobs processed at once by this process (mostly waiting on the language model). */
  WORKER_CONCURRENCY: envInt(4, 1, 64),
  /** Longest a graceful shutdown may take (the running job finishes first). */
  SHUTDOWN_TIMEOUT_MS: envInt(30_000, 1_000),
});

export type CorrectionWorkerConfig = z.infer<typeof correctionWorkerEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): CorrectionWorkerConfig {
  return parseConfig("correction-worker", correctionWorkerEnv, env);
}
