// The billing service as a real process: ready with Postgres and Redis up, its internal API and
// metrics on the ops port, its maintenance job scheduler registered, and a SIGTERM ends it cleanly (exit 0) within 10 s.
import { QUEUES } from "@kikitori/shared";
import { createQueue, createRedis } from "@kikitori/shared/server";
import {
  deletePrefix,
  exitWithin,
  freePort,
  startService,
  waitForStatus,
} from "../../../tests/infra/service-process.ts";
import { createTestDatabase, uniquePrefix } from "../../../tests/support/db.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const prefix = uniquePrefix("billing");
const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "client");

beforeAll(async () => {
  database = await createTestDatabase();
}, 30_000);
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
  await database?.drop();
});

it("serves /healthz and /readyz, schedules the sweep, then stops on SIGTERM with exit code 0", async () => {
  const port = await freePort();
  const svc = startService("billing", {
    NODE_ENV: "test",
    LOG_LEVEL: "info",
    OPS_HOST: "127.0.0.1",
    OPS_PORT: String(port),
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    REDIS_PREFIX: prefix,
    BILLING_SWEEP_EVERY_MS: "600000",
  });
  try {
    await waitForStatus(`http://127.0.0.1:${port}/healthz`, 200, svc);
    const ready = JSON.parse(await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, svc));
    expect(ready.checks).toEqual({ db: "ok", redis: "ok" });
    // The internal API on the same port: plans need no user; without a token configured it trusts the network.
    const plans = await (await fetch(`http://127.0.0.1:${port}/api/subscriptions/plans?lang=ja`)).json();
    expect(plans).toMatchObject({
      currency: "JPY",
      plans: [{ name: "free", price: 0 }, { price: 1980 }, { price: 3980 }],
    });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain("kikitori_queue_depth");

    const queue = createQueue(QUEUES.billing, redis, prefix);
    const deadline = Date.now() + 10_000;
    let schedulers = await queue.getJobSchedulers();
    while (!schedulers.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      schedulers = await queue.getJobSchedulers();
    }
    expect(schedulers).toEqual([expect.objectContaining({ key: "daily-maintenance", every: 600000 })]);
    await queue.close();

    svc.child.kill("SIGTERM");
    expect(await exitWithin(svc, 10_000)).toBe(0);
    expect(svc.output()).toContain('"msg":"stopped"');
  } finally {
    if (svc.child.exitCode === null) svc.child.kill("SIGKILL");
  }
}, 60_000);
