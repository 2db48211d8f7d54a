import { Queue, type QueueOptions } from "bullmq";
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
