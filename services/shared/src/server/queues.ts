import { type Job, Queue, QueueEvents, type QueueOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueName } from "../jobs.ts";

/** Defaults for every queue: bounded retries with backoff, finished jobs not kept forever. */
export const DEFAULT_JOB_OPTIONS: QueueOptions["defaultJobOptions"] = {
  attempts: 5,
  backoff: { type: "exponential", delay: 2_000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

export function createQueue(name: QueueName, connection: Redis, prefix: string): Queue {
  return new Queue(name, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
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

export type { Job, QueueEvents };
