/**
 * The fidelity view, worked out off the event loop: each report runs in a worker thread (killed after
 * FIDELITY_TIMEOUT_MS), at most two at once per gateway, and the last reports are kept by job version
 * (a job's texts only change with its version, so a kept report is exact).
 */
import { Worker } from "node:worker_threads";
import { AppError, type FidelityReport, type fidelityReport, fidelityReportSchema } from "@kikitori/shared";
import { Semaphore } from "../lib/semaphore.ts";

export const FIDELITY_TIMEOUT_MS = 30_000;
const KEPT = 200;
// From TypeScript, the .mjs entry that loads the worker through tsx; compiled (the image's esbuild
// bundles, scripts/build-services.mjs), the worker's own bundle beside the gateway's.
const WORKER = new URL(
  import.meta.url.endsWith(".js") ? "./fidelity-worker.js" : "./fidelity-worker.mjs",
  import.meta.url,
);

type Args = { raw: string; corrected: string | null; options: Parameters<typeof fidelityReport>[2] };

function inThread(args: Args, timeoutMs: number): Promise<FidelityReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: args });
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(
      () => done(() => reject(new AppError("SERVICE_UNAVAILABLE", "The fidelity check took too long; try again"))),
      timeoutMs,
    );
    worker.once("message", (m: unknown) => done(() => resolve(fidelityReportSchema.parse(m))));
    worker.once("error", (e) => done(() => reject(e)));
    worker.once("exit", (code) =>
      done(() => reject(new AppError("INTERNAL", `The fidelity check stopped (exit code ${code})`))),
    );
  });
}

export function createFidelityService(opts: { concurrency?: number; timeoutMs?: number } = {}) {
  const slots = new Semaphore(opts.concurrency ?? 2);
  const kept = new Map<string, FidelityReport>();
  return {
    async report(key: string, args: Args): Promise<FidelityReport> {
      const hit = kept.get(key);
      if (hit) return hit;
      const release = await slots.acquire(FIDELITY_TIMEOUT_MS);
      try {
        const report = await inThread(args, opts.timeoutMs ?? FIDELITY_TIMEOUT_MS);
        kept.set(key, report);
        if (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
        return report;
      } finally {
        release();
      }
    },
  };
}
export type FidelityService = ReturnType<typeof createFidelityService>;
