// The pipeline's hand-offs: what starts after each step's outcome, through the registry's producer
// (on a fake queue, so the payload is validated as in production).
import { randomUUID } from "node:crypto";
import { createJobQueues, handOn, type ProducerQueue } from "@kikitori/shared/server";

function queues() {
  const added: Array<{ queue: string; name: string; data: unknown; opts: unknown }> = [];
  const jobs = createJobQueues({
    connection: {} as never,
    prefix: "test",
    makeQueue: (queue) =>
      ({
        add: async (name: string, data: unknown, opts: unknown) => {
          added.push({ queue, name, data, opts });
          return {};
        },
        close: async () => undefined,
      }) as unknown as ProducerQueue,
  });
  return { jobs, added };
}

it("starts the correction of a transcribed recording, once per job id", async () => {
  const { jobs, added } = queues();
  const jobId = randomUUID();
  const userId = randomUUID();
  await handOn({ step: "transcribed", jobId, userId, correlationId: "req-1" }, jobs);
  expect(added).toEqual([
    { queue: "correction", name: "correct", data: { jobId, userId, correlationId: "req-1" }, opts: { jobId } },
  ]);
});

it("starts nothing after a correction or a skipped step", async () => {
  const { jobs, added } = queues();
  await handOn({ step: "corrected", jobId: randomUUID(), userId: randomUUID() }, jobs);
  await handOn({ step: "skipped", jobId: randomUUID(), reason: "job already failed" }, jobs);
  expect(added).toEqual([]);
});
