import { type Job, WaitingError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { AppError } from "../errors.ts";
import { type JobName, type JobPayload, jobNamesOf, jobSchemaOf, type QueueName } from "../jobs.ts";
import { parseJobPayload, toJobError, UnrecoverableJobError } from "./job-errors.ts";
import { withLogContext } from "./logger.ts";
import type { ServiceMetrics } from "./metrics.ts";

/**
 * What a running job is told about its worker shutting down. `stopping` is aborted as soon as a
 * graceful shutdown begins: a handler whose job runs in steps finishes the step in hand, keeps what
 * is done and hands the job back (handBackJob) instead of starting the next one. `signal` is
 * BullMQ's cancellation of the job (Worker.cancelAllJobs), aborted when the shutdown's time is
 * nearly used up: the step in hand is given up too. Handlers that ignore both simply finish.
 */
export interface JobControl {
  stopping: AbortSignal;
  signal: AbortSignal;
}

/** `token` is the worker's lock token (needed for job.moveToWaitingChildren and handBackJob). */
export type JobProcessor<T, R> = (job: Job<T, R>, token?: string, control?: JobControl) => Promise<R>;

/** Never aborted: the control of a job whose worker has no shutdown wiring (tests, createWorker alone). */
const NEVER = new AbortController().signal;

/** True for the errors with which a handler parks its job instead of finishing it (not failures). */
function isParked(err: unknown): boolean {
  return err instanceof Error && ["WaitingChildrenError", "WaitingError", "DelayedError"].includes(err.name);
}

/**
 * Puts a running job back at the front of its queue's wait list, to be taken up again by any
 * worker (BullMQ's manual retry: Job.moveToWait with the lock token, then WaitingError). Not a
 * failure: the attempt is not counted, no failure is reported, and the job is not left to be found
 * stalled. Always throws; the handler lets the error through.
 */
export async function handBackJob(job: Pick<Job, "moveToWait">, token: string | undefined): Promise<never> {
  if (!token) throw new AppError("SERVICE_UNAVAILABLE", "the job cannot be handed back without its lock token");
  await job.moveToWait(token);
  throw new WaitingError();
}

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
  return (job, token, control) =>
    withLogContext({ correlationId: jobCorrelationId(job) }, () => run(job, token, control));
  async function run(job: Job<T, R>, token?: string, control?: JobControl): Promise<R> {
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
      const result = await processor(job, token, control);
      opts.metrics?.jobDuration.observe({ queue, status: "completed" }, seconds());
      log.info({ durationMs: Math.round(seconds() * 1000) }, "job completed");
      return result;
    } catch (err) {
      // Not a failure: the job parked itself until its child jobs finish (BullMQ flow step), or went
      // back to the queue for another worker (handBackJob, during a shutdown).
      if (isParked(err)) {
        if ((err as Error).name !== "WaitingChildrenError") {
          log.info({ durationMs: Math.round(seconds() * 1000) }, "job handed back to the queue");
        }
        throw err;
      }
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
  /** Aborted when the service starts shutting down (JobControl.stopping). */
  stopping?: AbortSignal;
}): Worker<T, R> {
  const processor = instrumentProcessor(opts.queue, opts.processor, { logger: opts.logger, metrics: opts.metrics });
  const stopping = opts.stopping ?? NEVER;
  const worker = new Worker<T, R>(
    opts.queue,
    // Three parameters, so BullMQ hands each job its cancellation signal (Worker.cancelAllJobs).
    (job, token, signal) => processor(job, token, { stopping, signal: signal ?? NEVER }),
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
  control?: JobControl,
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
  const byName = handlers as unknown as Record<
    string,
    (job: Job, token?: string, control?: JobControl) => Promise<unknown>
  >;
  return async (job, token, control) => {
    if (!Object.hasOwn(byName, job.name)) {
      throw new UnrecoverableJobError(
        new AppError("VALIDATION_FAILED", `unknown job "${job.name}" on queue "${queue}"`, { retryable: false }),
      );
    }
    // The handler sees the payload as validated (unknown keys dropped); nothing is written back to Redis.
    job.data = parseJobPayload(jobSchemaOf(queue, job.name), job.data);
    return byName[job.name](job, token, control);
  };
}

/** The workers one service runs, to close together on shutdown. */
export interface JobWorkers {
  workers: Worker[];
  /**
   * Stops taking jobs and waits for the running ones. Running jobs see JobControl.stopping at once;
   * with `cancelAfterMs`, those still running then are cancelled (JobControl.signal), so a handler
   * that hands its job back on cancellation does so before the shutdown's time is up.
   */
  close(opts?: { cancelAfterMs?: number }): Promise<void>;
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
  const stopping = new AbortController();
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
      stopping: stopping.signal,
    }),
  );
  return {
    workers,
    async close(opts = {}) {
      stopping.abort(new Error("the worker is shutting down"));
      const cancel =
        opts.cancelAfterMs === undefined
          ? undefined
          : setTimeout(
              () => {
                ctx.logger.warn("shutdown time nearly used up: cancelling the jobs still running");
                for (const w of workers) w.cancelAllJobs("the worker's shutdown time is used up");
              },
              Math.max(0, opts.cancelAfterMs),
            );
      cancel?.unref();
      try {
        await Promise.all(workers.map((w) => w.close()));
      } finally {
        clearTimeout(cancel);
      }
    },
  };
}
