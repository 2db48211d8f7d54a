import { z } from "zod";

/**
 * The job registry: every BullMQ queue, the names of its jobs, each job's payload schema and the
 * queue's default job options, declared once (docs/decisions/0019-job-registry-and-use-cases.md).
 *
 * - Producers add jobs only through `createJobQueues(...).enqueue` (services/shared/src/server/queues.ts),
 *   which validates the payload against this table before anything reaches Redis.
 * - Workers take jobs only through `createJobWorkers` (services/shared/src/server/workers.ts), which
 *   validates each payload again on receipt and refuses to start without a handler for every job of
 *   the queues it consumes.
 *
 * Jobs carry object keys and ids, never blobs. Queue and job names are on the wire: the Redis keys
 * `<REDIS_PREFIX>:<queue>:wait` and `:active` are what the KEDA triggers in
 * k8s/components/autoscaling-keda watch, so renaming a queue is a deployment change.
 * This module is plain data and zod (no BullMQ), so the web app may import it.
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

/**
 * How a step of the recording's pipeline ended, as its handler returns it. What follows each outcome
 * is decided in one place, `handOn` (services/shared/src/server/pipeline.ts), not inside the handlers.
 */
export type StepOutcome =
  | { step: "transcribed"; jobId: string; userId: string; correlationId?: string }
  | { step: "corrected"; jobId: string; userId: string; correlationId?: string }
  | { step: "skipped"; jobId: string; reason: string };

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

/** Bring a finished job's interview text up to its edited transcript (the job's stored sync state says what to do). */
export const interviewSyncJobSchema = z.object({
  jobId: z.string().uuid(),
  userId: z.string().uuid(),
  correlationId: z.string().optional(),
});
export type InterviewSyncJob = z.infer<typeof interviewSyncJobSchema>;

/** One chunk of a recording to transcribe (several workers share one file this way). */
export const transcriptionChunkJobSchema = z.object({
  jobId: z.string().uuid(),
  userId: z.string().uuid(),
  index: z.number().int().min(0),
  correlationId: z.string().optional(),
});
export type TranscriptionChunkJob = z.infer<typeof transcriptionChunkJobSchema>;

/** A summary or title/heading run: the run id only; the input text travels through the object store. */
export const textJobSchema = z.object({
  runId: z.string().uuid(),
  userId: z.string().uuid(),
  kind: z.enum(["summary", "titles"]),
  inputKey: z.string().min(1),
  correlationId: z.string().optional(),
});
export type TextJob = z.infer<typeof textJobSchema>;

export const billingJobSchema = z.object({
  kind: z.enum(["daily-maintenance"]),
  /** ISO date the run is for; running the same day twice changes nothing. */
  day: z.string().optional(),
});
export type BillingJob = z.infer<typeof billingJobSchema>;

/** The scheduled sweep of expired audio: no payload (it finds what is due itself). */
export const audioRetentionJobSchema = z.object({});
export type AudioRetentionJob = z.infer<typeof audioRetentionJobSchema>;

/** The BullMQ job options the registry sets (plain data, so this module needs no BullMQ). */
export interface JobOptionDefaults {
  attempts: number;
  backoff: { type: "fixed" | "exponential"; delay: number };
  removeOnComplete: { age: number; count?: number };
  removeOnFail: { age: number; count?: number };
}

/** Defaults for every queue: bounded retries with backoff, finished jobs not kept forever. */
export const DEFAULT_JOB_OPTIONS: JobOptionDefaults = {
  attempts: 5,
  backoff: { type: "exponential", delay: 2_000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

interface QueueDefinition {
  /** Job name → payload schema. The job name is BullMQ's `job.name`. */
  jobs: Record<string, z.ZodType>;
  /** Options over DEFAULT_JOB_OPTIONS for every job of the queue (a call may still override them). */
  options?: Partial<JobOptionDefaults>;
}

/**
 * The table. A job name the table does not list is refused by producers and by workers alike.
 * Who consumes what: transcription-worker (transcription, transcription-chunk, audio-retention),
 * text-worker (correction, text), billing (billing).
 */
export const JOB_REGISTRY = {
  /** One recording, produced by the gateway's upload and retry; a flow parent of its chunk jobs. */
  [QUEUES.transcription]: { jobs: { transcribe: transcriptionJobSchema } },
  /** The chunks of one recording, added by the transcription worker as children of its parent job. */
  [QUEUES.transcriptionChunk]: { jobs: { chunk: transcriptionChunkJobSchema } },
  /**
   * The interview text of one transcript, handed over by the transcription worker (and a retry); and
   * bringing it up to an edited transcript (added by the gateway's edits).
   */
  [QUEUES.correction]: { jobs: { correct: correctionJobSchema, "sync-interview": interviewSyncJobSchema } },
  /**
   * Summaries and titles; the gateway waits for the result. Retried once on a passing fault (a bad
   * answer is retried inside the engine, not here).
   */
  [QUEUES.text]: {
    jobs: { summary: textJobSchema, titles: textJobSchema },
    options: { attempts: 2, backoff: { type: "fixed", delay: 1000 } },
  },
  /** The billing maintenance run (usage resets, scheduled plan switches, renewals), on a schedule. */
  [QUEUES.billing]: { jobs: { "daily-maintenance": billingJobSchema } },
  /** The sweep of audio past its retention date, on a schedule. */
  [QUEUES.audioRetention]: { jobs: { "audio-retention": audioRetentionJobSchema } },
} as const satisfies Record<QueueName, QueueDefinition>;

export type JobRegistry = typeof JOB_REGISTRY;
/** The job names of one queue. */
export type JobName<Q extends QueueName> = keyof JobRegistry[Q]["jobs"] & string;
type SchemaOf<Q extends QueueName, N extends JobName<Q>> = JobRegistry[Q]["jobs"][N] extends z.ZodType
  ? JobRegistry[Q]["jobs"][N]
  : never;
/** What a producer passes for a job (before validation). */
export type JobInput<Q extends QueueName, N extends JobName<Q> = JobName<Q>> = z.input<SchemaOf<Q, N>>;
/** What a handler receives (after validation). */
export type JobPayload<Q extends QueueName, N extends JobName<Q> = JobName<Q>> = z.output<SchemaOf<Q, N>>;

/** A queue, job name or payload that the registry does not allow (a programming error, not bad user input). */
export class JobContractError extends Error {
  override readonly name = "JobContractError";
  constructor(
    message: string,
    readonly issues: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

export function isQueueName(name: string): name is QueueName {
  return Object.hasOwn(JOB_REGISTRY, name);
}

function definitionOf(queue: string): QueueDefinition {
  if (!isQueueName(queue)) {
    throw new JobContractError(`unknown queue "${queue}" (the queues are listed in services/shared/src/jobs.ts)`);
  }
  return JOB_REGISTRY[queue];
}

/** The job names a queue's worker must handle, in the registry's order. */
export function jobNamesOf<Q extends QueueName>(queue: Q): Array<JobName<Q>> {
  return Object.keys(definitionOf(queue).jobs) as Array<JobName<Q>>;
}

/** The payload schema of one job; throws a JobContractError for a queue or job name the registry lacks. */
export function jobSchemaOf(queue: string, name: string): z.ZodType {
  const { jobs } = definitionOf(queue);
  if (!Object.hasOwn(jobs, name)) {
    throw new JobContractError(
      `unknown job "${name}" on queue "${queue}" (known: ${Object.keys(jobs).join(", ")}; see services/shared/src/jobs.ts)`,
    );
  }
  return jobs[name];
}

/**
 * Validates one job's payload against the registry: the payload as the handler will see it (unknown
 * keys dropped). Throws a JobContractError naming the queue, the job and what does not fit.
 */
export function parseJob<Q extends QueueName, N extends JobName<Q>>(
  queue: Q,
  name: N,
  payload: unknown,
): JobPayload<Q, N> {
  const r = jobSchemaOf(queue, name).safeParse(payload);
  if (!r.success) {
    const issues = r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    throw new JobContractError(
      `invalid payload for job "${name}" on queue "${queue}": ${issues.map((i) => `${i.path || "(root)"}: ${i.message}`).join("; ")}`,
      issues,
    );
  }
  return r.data as JobPayload<Q, N>;
}

/** The options every job of `queue` gets unless its call says otherwise. */
export function jobOptionsOf(queue: QueueName): JobOptionDefaults {
  return { ...DEFAULT_JOB_OPTIONS, ...(definitionOf(queue) as QueueDefinition).options };
}
