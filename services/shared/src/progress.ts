import { z } from "zod";
import { errorCodeSchema } from "./errors.ts";
import { transcriptSegmentSchema } from "./speech.ts";

/** Statuses pushed over /ws, word for word: clients match these strings (docs/decisions/0004-progress-fanout.md). */
export const PROGRESS_STATUSES = [
  "File uploaded",
  "Transcription started",
  "Transcription in progress",
  "Transcription complete",
  "Correction started",
  "Correction in progress",
  "Correction complete",
  "Failed",
] as const;

/**
 * `correlationId` (optional, added by the gateway from the envelope) is the id of the upload request
 * that started the job: it is in every log line of the upload, of both jobs and of this message.
 */
const base = { jobId: z.string(), correlationId: z.string().optional() };
const pct = z.number().min(0).max(100);

/**
 * The named stages of a transcription, in order: finding the speech in the recording (voice activity
 * detection), telling the voices apart (diarization; skipped without it), transcribing the parts.
 */
export const TRANSCRIPTION_STAGES = ["speech", "voices", "parts"] as const;
export type TranscriptionStage = (typeof TRANSCRIPTION_STAGES)[number];

/** The transcription progress (0–100) at the start of each stage; the parts then rise to 99. */
export const STAGE_PROGRESS: Readonly<Record<TranscriptionStage, number>> = { speech: 5, voices: 6, parts: 8 };

/**
 * Transcription progress while parts (chunks) finish (`done` of `total`: seconds of chunk audio): from
 * STAGE_PROGRESS.parts, rising to 99 (100 is "complete"); 5 when there is nothing to measure.
 */
export function partsProgress(done: number, total: number): number {
  if (total <= 0) return STAGE_PROGRESS.speech;
  const from = STAGE_PROGRESS.parts;
  return Math.min(99, from + Math.floor(((99 - from) * Math.min(done, total)) / total));
}

/** Which stage a "Transcription in progress" event is at; with parts, which one (1-based) of how many. */
const stageFields = {
  stage: z.enum(TRANSCRIPTION_STAGES).optional(),
  /** The part being transcribed (1-based: parts done + 1, at most `parts`). */
  part: z.number().int().min(1).optional(),
  parts: z.number().int().min(1).optional(),
};

export const progressEventSchema = z.discriminatedUnion("status", [
  z.object({ ...base, status: z.literal("File uploaded"), audioFileUrl: z.string() }),
  z.object({ ...base, status: z.literal("Transcription started"), transcriptionProgress: pct }),
  z.object({ ...base, status: z.literal("Transcription in progress"), transcriptionProgress: pct, ...stageFields }),
  z.object({
    ...base,
    status: z.literal("Transcription complete"),
    transcriptionProgress: pct,
    transcription: z.string(),
    transcriptionTime: z.number(),
  }),
  z.object({ ...base, status: z.literal("Correction started"), correctionProgress: pct }),
  z.object({ ...base, status: z.literal("Correction in progress"), correctionProgress: pct }),
  z.object({
    ...base,
    status: z.literal("Correction complete"),
    correctionProgress: pct,
    rewrittenText: z.string(),
    correctionTime: z.number(),
  }),
  z.object({
    ...base,
    status: z.literal("Failed"),
    error: z.object({ code: errorCodeSchema, message: z.string() }),
  }),
]);
export type ProgressEvent = z.infer<typeof progressEventSchema>;

/**
 * Live text (not one of PROGRESS_STATUSES): the timed segments of a finished chunk, sent in
 * chunk order as soon as every earlier chunk is out too, with how far the transcription is in
 * audio seconds and the estimated seconds left (null until one chunk is done).
 */
export const segmentsEventSchema = z.object({
  ...base,
  type: z.literal("segments"),
  /**
   * Index of the chunk these segments belong to. Chunks arrive in order; after a worker crash one may
   * arrive a second time, identical, so clients keep one per index.
   */
  chunkIndex: z.number().int().min(0),
  segments: z.array(transcriptSegmentSchema),
  audioSecondsDone: z.number().min(0),
  audioSecondsTotal: z.number().min(0),
  etaSeconds: z.number().min(0).nullable(),
  /** Audio language in use (detected or asked for), once known. */
  language: z.string().nullable(),
});
export type SegmentsEvent = z.infer<typeof segmentsEventSchema>;

/** Anything a worker publishes for a job: a status event or live segments. */
export const jobUpdateSchema = z.union([progressEventSchema, segmentsEventSchema]);
export type JobUpdate = z.infer<typeof jobUpdateSchema>;

/**
 * What travels on the Redis pub/sub channel: the event plus whom it is for. Pub/sub carries
 * updates only; the job's state lives in Postgres/BullMQ.
 */
export const progressEnvelopeSchema = z.object({
  userId: z.string(),
  correlationId: z.string().optional(),
  event: jobUpdateSchema,
});
export type ProgressEnvelope = z.infer<typeof progressEnvelopeSchema>;

/** The /ws protocol. */
export const WS_AUTH_TIMEOUT_MS = 5_000;
export const WS_CLOSE_UNAUTHENTICATED = 4401;
export const wsClientMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auth"), token: z.string().min(1).max(4096) }),
  z.object({ type: z.literal("ping") }),
]);
export type WsClientMessage = z.infer<typeof wsClientMessageSchema>;
export type WsServerMessage = { type: "ready" } | { type: "pong" } | JobUpdate;
