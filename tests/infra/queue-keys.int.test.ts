// The KEDA triggers (k8s/components/autoscaling-keda) read the length of `<REDIS_PREFIX>:<queue>:wait`
// and `<REDIS_PREFIX>:<queue>:active`.
// This checks against a real Redis that BullMQ keeps the waiting jobs of our queues in exactly that
// list, for parent jobs and for chunk jobs added as flow children the way the transcription worker
// adds them (through the job registry's producer, services/shared/src/server/queues.ts), and that the
// list empties when the jobs are taken.
import { randomUUID } from "node:crypto";
import { QUEUES } from "@kikitori/shared";
import { createJobQueues, createRedis } from "@kikitori/shared/server";
import { Worker } from "bullmq";
import { uniquePrefix } from "../support/db.ts";
import { deletePrefix } from "./service-process.ts";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = uniquePrefix("keda");
const redis = createRedis(url, "worker");

afterAll(async () => {
  await deletePrefix(redis, prefix);
  await redis.quit();
});

it("keeps waiting jobs in the Redis list <prefix>:<queue>:wait that KEDA measures", async () => {
  const jobs = createJobQueues({ connection: redis, prefix });
  const jobId = randomUUID();
  const userId = randomUUID();
  const parent = await jobs.enqueue(QUEUES.transcription, "transcribe", { jobId, userId, audioKey: "k" }, { jobId });
  // As services/transcription-worker/src/main.ts does: children of the parent, several at once.
  await jobs.enqueueBulk(
    QUEUES.transcriptionChunk,
    "chunk",
    [0, 1, 2].map((index) => ({
      payload: { jobId, userId, index },
      opts: { jobId: `${jobId}-c${index}`, parent: { id: parent.id!, queue: parent.queueQualifiedName }, attempts: 3 },
    })),
  );
  await jobs.enqueue(QUEUES.correction, "correct", { jobId, userId }, { jobId });

  for (const [queue, n] of [
    [QUEUES.transcription, 1],
    [QUEUES.transcriptionChunk, 3],
    [QUEUES.correction, 1],
  ] as const) {
    const key = `${prefix}:${queue}:wait`;
    expect({ key, type: await redis.type(key), length: await redis.llen(key) }).toEqual({
      key,
      type: "list",
      length: n,
    });
  }

  // A worker taking the chunks moves them to the list <prefix>:<queue>:active while they run (the
  // triggers that keep busy replicas from being scaled away), then empties both lists.
  const seen: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  const workerConnection = redis.duplicate();
  const worker = new Worker(
    QUEUES.transcriptionChunk,
    async (job) => {
      seen.push(job.id!);
      await held;
    },
    { connection: workerConnection, prefix, concurrency: 3 },
  );
  const activeKey = `${prefix}:${QUEUES.transcriptionChunk}:active`;
  const deadline = Date.now() + 10_000;
  while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(seen.sort()).toEqual([0, 1, 2].map((i) => `${jobId}-c${i}`));
  expect({ type: await redis.type(activeKey), length: await redis.llen(activeKey) }).toEqual({
    type: "list",
    length: 3,
  });
  release();
  while ((await redis.llen(activeKey)) > 0 && Date.now() < deadline + 10_000)
    await new Promise((r) => setTimeout(r, 50));
  expect(await redis.llen(activeKey)).toBe(0);
  expect(await redis.llen(`${prefix}:${QUEUES.transcriptionChunk}:wait`)).toBe(0);
  await worker.close();
  await workerConnection.quit();
  await jobs.close();
});
