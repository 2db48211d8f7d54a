// Each worker as a real process: ready with Postgres, Redis and S3 up, its queue's depth on /metrics,
// and a SIGTERM ends it cleanly (exit 0) within 10 s.
import { exitWithin, freePort, stackEnv, startService, waitForStatus } from "./service-process.ts";
import { useWorkerStack } from "./worker-stack.ts";

const stack = useWorkerStack();

it.each([
  ["transcription-worker", "transcription", { db: "ok", redis: "ok", s3: "ok", engine: "ok" }],
  ["text-worker", "correction", { db: "ok", redis: "ok", s3: "ok" }],
] as const)(
  "%s serves /healthz and /readyz, then stops on SIGTERM with exit code 0",
  async (service, queue, checks) => {
    const prefix = stack.prefix(service === "transcription-worker" ? "tw" : "cw");
    const port = await freePort();
    const svc = startService(service, {
      NODE_ENV: "test",
      LOG_LEVEL: "info",
      OPS_HOST: "127.0.0.1",
      OPS_PORT: String(port),
      ...stackEnv(stack.databaseUrl(), prefix),
    });
    try {
      await waitForStatus(`http://127.0.0.1:${port}/healthz`, 200, svc);
      const ready = JSON.parse(await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, svc));
      expect(ready.checks).toEqual(checks);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain(`kikitori_queue_depth{queue="${queue}",state="waiting"`);
      expect(metrics).toContain("process_cpu_seconds_total");

      svc.child.kill("SIGTERM");
      expect(await exitWithin(svc, 10_000)).toBe(0);
      expect(svc.output()).toContain('"msg":"stopped"');
    } finally {
      if (svc.child.exitCode === null) svc.child.kill("SIGKILL");
    }
  },
  60_000,
);
