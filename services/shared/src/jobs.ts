import { z } from "zod";

/**
 * Every BullMQ queue, declared once. Producers and consumers import these names; the payloads are
 * validated on enqueue and again by the consumer. Jobs carry object keys and ids, never blobs.
 */
export const QUEUES = {
  transcription: "transcription",
  transcriptionChunk: "transcription-chunk",
  correction: "correction",
  text: "text",
  billing: "billing",
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Redis pub/sub channel for progress updates (fanned out by gateways to sockets). */
export const PROGRESS_CHANNEL = "progress";

export const transcriptionJobSchema = z.object({
  jobId: z.string().uuid(),
  userId: z.string().uuid(),
  audioKey: z.string().min(1),
  correlationId: z.string().optional(),
});
export type TranscriptionJob = z.infer<typeof transcriptionJobSchema>;

export const correctionJobSchema = z.object({
  jobId: z.string().uuid(),
  userId: z.string().uuid(),
  correlationId: z.string().optional(),
});
export type CorrectionJob = z.infer<typeof correctionJobSchema>;

export const billingJobSchema = z.object({
  kind: z.enum(["daily-maintenance"]),
  /** ISO date the run is for; running the same day twice changes nothing. */
  day: z.string().optional(),
});
export type BillingJob = z.infer<typeof billingJobSchema>;

export const JOB_PAYLOADS = {
  [QUEUES.transcription]: transcriptionJobSchema,
  [QUEUES.correction]: correctionJobSchema,
  [QUEUES.billing]: billingJobSchema,
} as const;
