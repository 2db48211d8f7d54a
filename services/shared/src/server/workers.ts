import { type Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { AppError } from "../errors.ts";
import { type JobName, type JobPayload, jobNamesOf, jobSchemaOf, type QueueName } from "../jobs.ts";
import { parseJobPayload, toJobError, UnrecoverableJobError } from "./job-errors.ts";
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
 * A BullMQ Worker on one of the shared queues; services start theirs with `createJobWorkers` (below),
 * which adds the registry's checks. `connection` must be a "worker" role connection
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

/** Handles one job of the registry; `job.data` is the payload already validated against it. */
export type JobHandler<Q extends QueueName, N extends JobName<Q>> = (
  job: Job<JobPayload<Q, N>>,
  token?: string,
) => Promise<unknown>;

/** One handler per job name of the queue (services/shared/src/jobs.ts): a missing one does not compile. */
export type JobHandlers<Q extends QueueName> = { [N in JobName<Q>]: JobHandler<Q, N> };

/** How one service consumes one queue. */
export interface QueueWorkerSpec<Q extends QueueName> {
  handlers: JobHandlers<Q>;
  concurrency: number;
  /**
   * Called once a job has failed for good (e.g. to tell its user); errors here are only logged. The
   * job may be one whose payload did not validate, so its data is unknown.
   */
  onFinalFailure?: (job: JobLike<unknown>, err: Error) => Promise<void> | void;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  autorun?: boolean;
}

/** The queues one service consumes, each with its handlers and settings. */
export type WorkerSpecs = { [Q in QueueName]?: QueueWorkerSpec<Q> };

/**
 * Throws unless `handlers` has exactly the registry's job names for `queue`: a worker that would
 * leave a registered job unhandled (or names a job the registry does not know) must not start.
 */
export function assertHandlers(queue: QueueName, handlers: Record<string, unknown>): void {
  const expected = jobNamesOf(queue);
  const missing = expected.filter((n) => typeof handlers[n] !== "function");
  const unknown = Object.keys(handlers).filter((n) => !(expected as string[]).includes(n));
  if (missing.length || unknown.length) {
    throw new Error(
      [
        `the worker for queue "${queue}" cannot start:`,
        missing.length ? `no handler for job(s) ${missing.map((n) => `"${n}"`).join(", ")};` : "",
        unknown.length
          ? `handler(s) for job(s) the registry does not list: ${unknown.map((n) => `"${n}"`).join(", ")};`
          : "",
        "see services/shared/src/jobs.ts",
      ]
        .filter(Boolean)
        .join(" "),
    );
  }
}

/**
 * The processor of one queue: finds the handler by job name and validates the payload on receipt.
 * An unknown job name or a payload that does not fit fails the job at once (no retry: the same data
 * would fail again), with VALIDATION_FAILED.
 */
export function jobProcessor<Q extends QueueName>(queue: Q, handlers: JobHandlers<Q>): JobProcessor<unknown, unknown> {
  assertHandlers(queue, handlers);
  const byName = handlers as unknown as Record<string, (job: Job, token?: string) => Promise<unknown>>;
  return async (job, token) => {
    if (!Object.hasOwn(byName, job.name)) {
      throw new UnrecoverableJobError(
        new AppError("VALIDATION_FAILED", `unknown job "${job.name}" on queue "${queue}"`, { retryable: false }),
      );
    }
    // The handler sees the payload as validated (unknown keys dropped); nothing is written back to Redis.
    job.data = parseJobPayload(jobSchemaOf(queue, job.name), job.data);
    return byName[job.name](job, token);
  };
}

/** The workers one service runs, to close together on shutdown. */
export interface JobWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

/**
 * Starts one Worker per queue in `specs`, each dispatching to its handlers by job name with the
 * payload validated (jobProcessor), timed and logged (instrumentProcessor), and its final failures
 * reported (`onFinalFailure`). Every queue's handlers are checked before any worker starts, so a
 * missing handler stops the service at boot rather than failing jobs later.
 */
export function createJobWorkers(
  ctx: {
    connection: Redis;
    prefix: string;
    logger: Logger;
    metrics?: Pick<ServiceMetrics, "jobDuration">;
  },
  specs: WorkerSpecs,
): JobWorkers {
  const entries = Object.entries(specs) as Array<[QueueName, QueueWorkerSpec<QueueName>]>;
  const processors = entries.map(([queue, spec]) => jobProcessor(queue, spec.handlers));
  const workers = entries.map(([queue, spec], i) =>
    createWorker<unknown, unknown>({
      queue,
      connection: ctx.connection,
      prefix: ctx.prefix,
      concurrency: spec.concurrency,
      processor: processors[i],
      onFinalFailure: spec.onFinalFailure,
      logger: ctx.logger,
      metrics: ctx.metrics,
      autorun: spec.autorun,
      lockDurationMs: spec.lockDurationMs,
      stalledIntervalMs: spec.stalledIntervalMs,
      maxStalledCount: spec.maxStalledCount,
    }),
  );
  return { workers, close: () => Promise.all(workers.map((w) => w.close())).then(() => undefined) };
}
