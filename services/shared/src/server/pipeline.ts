import { QUEUES, type StepOutcome } from "../jobs.ts";
import type { JobQueues } from "./queues.ts";

/**
 * The pipeline's hand-offs, in one place: what starts when a step ends.
 * - transcribed → the correction job of that recording (deduplicated by the job id, so a re-run of a
 *   step that already handed on adds nothing);
 * - corrected → nothing: the owner's sockets were told by the step, and the job is complete;
 * - skipped (the job was deleted, failed or finished meanwhile) → nothing.
 * Failures are not outcomes: a step that throws is retried by BullMQ, and a final failure is reported
 * by the queue's `onFinalFailure`.
 */
export async function handOn(outcome: StepOutcome, queues: Pick<JobQueues, "enqueue">): Promise<void> {
  switch (outcome.step) {
    case "transcribed": {
      const { jobId, userId, correlationId } = outcome;
      await queues.enqueue(QUEUES.correction, "correct", { jobId, userId, correlationId }, { jobId });
      return;
    }
    case "corrected":
    case "skipped":
      return;
  }
}
