import { type Job, type JobsOptions, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import {
  type JobInput,
  type JobName,
  type JobOptionDefaults,
  type JobPayload,
  jobOptionsOf,
  parseJob,
  type QueueName,
} from "../jobs.ts";

/**
 * A BullMQ Queue with the registry's default job options for it (services/shared/src/jobs.ts).
 * Services add jobs through `createJobQueues(...).enqueue`, never with `queue.add`; tests may use a
 * queue of their own to look at what is in it.
 */
export function createQueue(name: QueueName, connection: Redis, prefix: string): Queue {
  return new Queue(name, { connection, prefix, defaultJobOptions: jobOptionsOf(name) });
}

/**
 * Events of one queue (completed / failed), for a producer that waits for its job's result with
 * `job.waitUntilFinished(events, ttl)`. It reads a Redis stream with blocking calls, so it gets a
 * connection of its own, built from the options of `like` (BullMQ closes it on `close()`).
 */
export function createQueueEvents(name: QueueName, like: Redis, prefix: string): QueueEvents {
  return new QueueEvents(name, {
    connection: { ...like.options, maxRetriesPerRequest: null, enableOfflineQueue: true, lazyConnect: false },
    prefix,
  });
}

/** What one call may set over the registry's options for the queue. */
export interface EnqueueOptions {
  /** BullMQ job id: adding a job whose id is already in the queue changes nothing (deduplication). */
  jobId?: string;
  attempts?: JobOptionDefaults["attempts"];
  backoff?: JobOptionDefaults["backoff"];
  /** Adds the job as a child of this one (a BullMQ flow: the parent waits for its children). */
  parent?: { id: string; queue: string };
  /** With `parent`: a child that fails for good fails its parent. */
  failParentOnFailure?: boolean;
  /** Milliseconds before the job may start (edits typed in a burst are taken by the first job that runs). */
  delay?: number;
}

/** The part of a BullMQ Queue the producer uses (a fake in unit tests). */
export type ProducerQueue = Pick<Queue, "add" | "addBulk" | "upsertJobScheduler" | "close">;

/**
 * The one way to add jobs: each payload is checked against the registry (a JobContractError names
 * the queue, the job and what does not fit) before anything is sent to Redis. One Queue per queue
 * name, made on first use, shared by every caller of the process.
 */
export interface JobQueues {
  enqueue<Q extends QueueName, N extends JobName<Q>>(
    queue: Q,
    name: N,
    payload: JobInput<Q, N>,
    opts?: EnqueueOptions,
  ): Promise<Job<JobPayload<Q, N>>>;
  /** Several jobs of one name in one round trip (e.g. the chunk jobs of a recording). */
  enqueueBulk<Q extends QueueName, N extends JobName<Q>>(
    queue: Q,
    name: N,
    jobs: ReadonlyArray<{ payload: JobInput<Q, N>; opts?: EnqueueOptions }>,
  ): Promise<Array<Job<JobPayload<Q, N>>>>;
  /**
   * A repeating job (BullMQ job scheduler `scheduleId`, every `everyMs`). Idempotent: every replica
   * upserts the same scheduler and BullMQ keeps one.
   */
  schedule<Q extends QueueName, N extends JobName<Q>>(
    queue: Q,
    name: N,
    schedule: { id: string; everyMs: number },
    payload: JobInput<Q, N>,
  ): Promise<void>;
  /** The queue itself, for depth metrics and inspection; add jobs with `enqueue`. */
  queue(name: QueueName): Queue;
  /** The queue's events, for a producer waiting for a result; made on first use, then ready to listen. */
  events(name: QueueName): QueueEvents;
  /** Closes every queue and event stream made so far (not the Redis connection, which the caller owns). */
  close(): Promise<void>;
}

export function createJobQueues(opts: {
  /** A "producer" or "worker" role connection; QueueEvents get their own, built from its options. */
  connection: Redis;
  prefix: string;
  logger?: Pick<Logger, "warn">;
  /** Tests pass a fake; by default a BullMQ Queue with the registry's options. */
  makeQueue?: (name: QueueName) => ProducerQueue;
}): JobQueues {
  const queues = new Map<QueueName, ProducerQueue>();
  const events = new Map<QueueName, QueueEvents>();
  const make = opts.makeQueue ?? ((name: QueueName) => createQueue(name, opts.connection, opts.prefix));
  const queueOf = (name: QueueName): ProducerQueue => {
    let q = queues.get(name);
    if (!q) {
      q = make(name);
      queues.set(name, q);
    }
    return q;
  };
  return {
    async enqueue(queue, name, payload, jobOpts) {
      const data = parseJob(queue, name, payload);
      return (await queueOf(queue).add(name, data, jobOpts as JobsOptions | undefined)) as Job<
        JobPayload<typeof queue, typeof name>
      >;
    },
    async enqueueBulk(queue, name, jobs) {
      const bulk = jobs.map((j) => ({
        name,
        data: parseJob(queue, name, j.payload),
        opts: j.opts as JobsOptions | undefined,
      }));
      return (await queueOf(queue).addBulk(bulk)) as Array<Job<JobPayload<typeof queue, typeof name>>>;
    },
    async schedule(queue, name, schedule, payload) {
      const data = parseJob(queue, name, payload);
      await queueOf(queue).upsertJobScheduler(schedule.id, { every: schedule.everyMs }, { name, data });
    },
    queue(name) {
      return queueOf(name) as Queue;
    },
    events(name) {
      let e = events.get(name);
      if (!e) {
        e = createQueueEvents(name, opts.connection, opts.prefix);
        // Without an "error" listener an EventEmitter error would crash the process (e.g. Redis blips).
        e.on("error", (err) => opts.logger?.warn({ err: err.message, queue: name }, "queue events error"));
        events.set(name, e);
      }
      return e;
    },
    async close() {
      await Promise.all([...events.values()].map((e) => e.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
      events.clear();
      queues.clear();
    },
  };
}

export type { Job, QueueEvents };
