/**
 * The section loop both correction engines share: each section is a resumable step (runStep in
 * shared/server), by its index. A section whose result is in `steps` (CorrectOptions.steps: the
 * job's stored sections) is taken as it is; a new one runs, is stored there and reported to
 * `onSection` before the next starts. When asked to stop (`stop`: the worker is shutting down), no
 * new section starts: the call rejects with StoppedAtBoundary once the section in hand is finished
 * and stored, so the job can go back to the queue and another worker continues from the stored ones.
 */

import { setImmediate as yieldToLoop } from "node:timers/promises";
import { AppError } from "@kikitori/shared";
import { memoryStepStore, runStepOnce } from "@kikitori/shared/server";
import type { CorrectOptions } from "./port.ts";

/** The correction stopped between two sections because the worker is shutting down; nothing is lost. */
export class StoppedAtBoundary extends Error {
  override readonly name = "StoppedAtBoundary";
  constructor(
    /** Sections finished and stored (resumed ones included). */
    readonly done: number,
    readonly total: number,
  ) {
    super(`stopped between sections after ${done} of ${total} (shutting down)`);
  }
}

/**
 * Why `signal` was aborted, as an Error: its reason when that is one, else a retryable
 * SERVICE_UNAVAILABLE naming it (a reason may be any value, e.g. BullMQ's cancellation string).
 */
export function abortError(signal: AbortSignal, cause?: unknown): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new AppError("SERVICE_UNAVAILABLE", `the correction was cancelled: ${String(reason ?? "aborted")}`, {
    retryable: true,
    cause,
  });
}

export interface ResumableSteps {
  /** How many steps there are; their ids are 0 … count − 1, run in order. */
  count: number;
  /** Takes in a step's stored result (resumed, not run again), in order, e.g. to carry state on. */
  kept?: (id: number, result: string) => void;
  /**
   * Runs one step. `before` holds the results of the steps before it (stored or new); `signal` is
   * the hard cancel (CorrectOptions.signal).
   */
  run: (id: number, before: readonly string[], signal?: AbortSignal) => Promise<string> | string;
  /** Gives the event loop a turn after each new step (engines whose steps are CPU work). */
  yieldBetween?: boolean;
}

/** Runs the steps not stored yet, in order; returns every step's result by id. */
export async function runResumableSteps(steps: ResumableSteps, opts: CorrectOptions = {}): Promise<string[]> {
  const store = opts.steps ?? memoryStepStore<string, number>();
  const out: string[] = [];
  for (let id = 0; id < steps.count; id++) {
    if (opts.signal?.aborted) throw abortError(opts.signal);
    const { result, ran } = await runStepOnce(store, id, () => {
      // Checked only before a step that would run: a job whose steps are all stored still finishes.
      if (opts.stop?.aborted) throw new StoppedAtBoundary(id, steps.count);
      return steps.run(id, out, opts.signal);
    });
    out[id] = result;
    if (!ran) {
      steps.kept?.(id, result);
      continue;
    }
    await opts.onSection?.(id, result, id + 1, steps.count);
    if (steps.yieldBetween && steps.count > 1) await yieldToLoop();
  }
  return out;
}
