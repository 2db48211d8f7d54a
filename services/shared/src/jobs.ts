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
  audioRetention: "audio-retention",
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

/** One chunk of a recording to transcribe (several workers share one file this way). */
export const transcriptionChunkJobSchema = z.object({
  jobId: z.string().uuid(),
  userId: z.string().uuid(),
  index: z.number().int().min(0),
  correlationId: z.string().optional(),
});
export type TranscriptionChunkJob = z.infer<typeof transcriptionChunkJobSchema>;

export const billingJobSchema = z.object({
  kind: z.enum(["daily-maintenance"]),
  /** ISO date the run is for; running the same day twice changes nothing. */
  day: z.string().optional(),
});
export type BillingJob = z.infer<typeof billingJobSchema>;
