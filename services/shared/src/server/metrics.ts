import type { Queue } from "bullmq";
import client from "prom-client";

/** States counted by the queue-depth gauge. */
export const QUEUE_DEPTH_STATES = ["waiting", "active", "delayed", "prioritized", "failed"] as const;

export interface ServiceMetrics {
  registry: client.Registry;
  /** Wall time of each job a worker processed, by queue and outcome (completed | failed). */
  jobDuration: client.Histogram<"queue" | "status">;
}

/**
 * One Prometheus registry per process: default Node metrics, a job-duration histogram and, for
 * each queue given, a depth gauge read from Redis at scrape time (bounded by `depthTimeoutMs`; on
 * a timeout the last known values stay).
 */
export function createServiceMetrics(
  service: string,
  opts: { queues?: Queue[]; depthTimeoutMs?: number; registry?: client.Registry } = {},
): ServiceMetrics {
  const registry = opts.registry ?? new client.Registry();
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry });

  const jobDuration = new client.Histogram({
    name: "kikitori_job_duration_seconds",
    help: "Time spent processing one job, by queue and outcome",
    labelNames: ["queue", "status"] as const,
    buckets: [0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });

  const queues = opts.queues ?? [];
  if (queues.length) {
    const timeoutMs = opts.depthTimeoutMs ?? 1_000;
    const gauge: client.Gauge<"queue" | "state"> = new client.Gauge({
      name: "kikitori_queue_depth",
      help: "Jobs in each queue this process consumes, by state",
      labelNames: ["queue", "state"] as const,
      registers: [registry],
      async collect() {
        await Promise.all(
          queues.map(async (q) => {
            let timer: NodeJS.Timeout | undefined;
            try {
              const counts = await Promise.race([
                q.getJobCounts(...QUEUE_DEPTH_STATES),
                new Promise<never>((_, reject) => {
                  timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
                  timer.unref();
                }),
              ]);
              for (const state of QUEUE_DEPTH_STATES) gauge.set({ queue: q.name, state }, counts[state] ?? 0);
            } catch {
              // Redis unreachable: keep the last values; /readyz reports the outage.
            } finally {
              clearTimeout(timer);
            }
          }),
        );
      },
    });
  }

  return { registry, jobDuration };
}
