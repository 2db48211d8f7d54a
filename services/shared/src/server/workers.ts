import { type Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { QueueName } from "../jobs.ts";
import { toJobError } from "./job-errors.ts";
import { withLogContext } from "./logger.ts";
import type { ServiceMetrics } from "./metrics.ts";

/** `token` is the worker's lock token (needed for job.moveToWaitingChildren). */
export type JobProcessor<T, R> = (job: Job<T, R>, token?: string) => Promise<R>;

/** The part of a BullMQ job that processors and failure reporters read (easy to fake in tests). */
export type JobLike<T = unknown> = Pick<Job<T>, "id" | "name" | "data" | "attemptsMade" | "opts">;

/** True when BullMQ will not retry: the error is unrecoverable or the attempts are used up. */
export function isFinalFailure(job: Pick<JobLike, "attemptsMade" | "opts">, err: unknown): boolean {
  if (err instanceof Error && err.name === "UnrecoverableError") return true;
  return job.attemptsMade >= (job.opts.attempts ?? 1);
}

/** The correlation id a job payload carries (the id of the upload request that started it). */
export function jobCorrelationId(job: { data?: unknown } | undefined): string | undefined {
  const id = (job?.data as { correlationId?: unknown } | undefined)?.correlationId;
  return typeof id === "string" && id ? id : undefined;
}

/**
 * Wraps a processor: times it into the job-duration histogram, runs it in a log context carrying the
 * job's correlation id (so every line the handler writes, with any logger, has it), logs the outcome,
 * and turns non-retryable AppErrors into BullMQ's UnrecoverableError.
 */
export function instrumentProcessor<T, R>(
  queue: string,
  processor: JobProcessor<T, R>,
  opts: { logger: Logger; metrics?: Pick<ServiceMetrics, "jobDuration"> },
): JobProcessor<T, R> {
  return (job, token) => withLogContext({ correlationId: jobCorrelationId(job) }, () => run(job, token));
  async function run(job: Job<T, R>, token?: string): Promise<R> {
    const started = process.hrtime.bigint();
    const correlationId = jobCorrelationId(job);
    const log = opts.logger.child({
      queue,
      jobId: job.id,
      jobName: job.name,
      attempt: job.attemptsMade + 1,
      correlationId,
    });
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result = await processor(job, token);
      opts.metrics?.jobDuration.observe({ queue, status: "completed" }, seconds());
      log.info({ durationMs: Math.round(seconds() * 1000) }, "job completed");
      return result;
    } catch (err) {
      // Not a failure: the job parked itself until its child jobs finish (BullMQ flow step).
      if (err instanceof Error && err.name === "WaitingChildrenError") throw err;
      opts.metrics?.jobDuration.observe({ queue, status: "failed" }, seconds());
      const jobErr = toJobError(err);
      log.warn({ err, durationMs: Math.round(seconds() * 1000) }, "job failed");
      throw jobErr;
    }
  }
}

/**
 * A BullMQ Worker on one of the shared queues. `connection` must be a "worker" role connection
 * (maxRetriesPerRequest null); BullMQ duplicates it for its blocking reads and leaves it open on
 * close, so the caller quits it after `worker.close()`.
 */
export function createWorker<T, R>(opts: {
  queue: QueueName;
  connection: Redis;
  prefix: string;
  concurrency: number;
  processor: JobProcessor<T, R>;
  logger: Logger;
  metrics?: Pick<ServiceMetrics, "jobDuration">;
  /** Called once a job has failed for good (e.g. to tell its user); errors here are only logged. */
  onFinalFailure?: (job: Job<T, R>, err: Error) => Promise<void> | void;
  autorun?: boolean;
  /** How long a job's lock lasts without renewal, and how often stalled jobs are looked for (ms). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Times a job may be taken over from a dead worker before it fails (BullMQ's default is 1). */
  maxStalledCount?: number;
}): Worker<T, R> {
  const worker = new Worker<T, R>(
    opts.queue,
    instrumentProcessor(opts.queue, opts.processor, { logger: opts.logger, metrics: opts.metrics }),
    {
      connection: opts.connection,
      prefix: opts.prefix,
      concurrency: opts.concurrency,
      autorun: opts.autorun ?? true,
      ...(opts.lockDurationMs ? { lockDuration: opts.lockDurationMs } : {}),
      ...(opts.stalledIntervalMs ? { stalledInterval: opts.stalledIntervalMs } : {}),
      ...(opts.maxStalledCount !== undefined ? { maxStalledCount: opts.maxStalledCount } : {}),
    },
  );
  // Without an "error" listener an EventEmitter error would crash the process (e.g. Redis blips).
  worker.on("error", (err) => opts.logger.error({ err, queue: opts.queue }, "worker error"));
  const onFinalFailure = opts.onFinalFailure;
  if (onFinalFailure) {
    worker.on("failed", (job, err) => {
      if (!job || !isFinalFailure(job, err)) return;
      withLogContext({ correlationId: jobCorrelationId(job) }, () =>
        Promise.resolve()
          .then(() => onFinalFailure(job, err))
          .catch((e) => opts.logger.error({ err: e, queue: opts.queue, jobId: job.id }, "failure report failed")),
      );
    });
  }
  return worker;
}
