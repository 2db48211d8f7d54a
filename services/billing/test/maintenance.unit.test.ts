import { createLogger, parseConfig } from "@kikitori/shared/server";
import { billingEnv } from "../src/config.ts";
import { processMaintenance } from "../src/handlers/maintenance.ts";

describe("processMaintenance", () => {
  it("rejects an unknown job kind without touching the database", async () => {
    const db = new Proxy(
      {},
      {
        get() {
          throw new Error("database must not be used");
        },
      },
    );
    await expect(
      processMaintenance(
        { db: db as never, billing: db as never, logger: createLogger("test", "silent"), now: () => new Date() },
        { id: "1", name: "x", data: { kind: "something-else" }, attemptsMade: 0, opts: {} },
      ),
    ).rejects.toMatchObject({ name: "UnrecoverableError", code: "VALIDATION_FAILED" });
  });
});

describe("billing config", () => {
  it("has working defaults", () => {
    const cfg = parseConfig("billing", billingEnv, {});
    expect([cfg.OPS_PORT, cfg.OPS_HOST, cfg.BILLING_SWEEP_EVERY_MS, cfg.WORKER_CONCURRENCY]).toEqual([
      3103,
      "0.0.0.0",
      3_600_000,
      1,
    ]);
  });

  it("names every bad variable", () => {
    expect(() => parseConfig("billing", billingEnv, { OPS_PORT: "70000", BILLING_SWEEP_EVERY_MS: "soon" })).toThrow(
      /OPS_PORT[\s\S]*BILLING_SWEEP_EVERY_MS|BILLING_SWEEP_EVERY_MS[\s\S]*OPS_PORT/,
    );
  });
});
