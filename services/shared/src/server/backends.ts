/**
 * Start-up shared by the worker processes: the connections they open and their ops server.
 * Separate from the `./server` entry because it loads the Prisma client.
 */
import type http from "node:http";
import type { Redis } from "ioredis";
import { objectStoreCheck } from "./checks.ts";
import type { CommonConfig } from "./config.ts";
import { createDb, type Db, pingDb } from "./db.ts";
import { type Check, startOpsServer } from "./lifecycle.ts";
import type { Logger } from "./logger.ts";
import { createRedis, pingRedis } from "./redis.ts";
import { createObjectStore, type ObjectStore } from "./storage.ts";

export interface WorkerBackends {
  db: Db;
  redis: Redis;
  store: ObjectStore;
  /** Readiness of PostgreSQL, Redis and the object store, for the ops server. */
  checks: Record<"db" | "redis" | "s3", Check>;
}

/** PostgreSQL (a pool of `dbPoolSize`), Redis in worker mode and the object store; an unready store is only logged. */
export function connectWorkerBackends(cfg: CommonConfig, logger: Logger, dbPoolSize: number): WorkerBackends {
  const db = createDb(cfg.DATABASE_URL, { max: dbPoolSize });
  const redis = createRedis(cfg.REDIS_URL, "worker");
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  const store = createObjectStore(cfg);
  const s3 = objectStoreCheck(store);
  s3().catch((err) => logger.warn({ err: (err as Error).message }, "object store not ready yet"));
  return { db, redis, store, checks: { db: () => pingDb(db), redis: () => pingRedis(redis), s3 } };
}

/** The ops server (/healthz, /readyz, /metrics); a worker nobody can probe must not run, so it exits. */
export async function startOpsServerOrExit(
  opts: Parameters<typeof startOpsServer>[0],
  logger: Logger,
): Promise<http.Server> {
  try {
    return await startOpsServer(opts);
  } catch (err) {
    logger.fatal({ err }, "cannot start the ops server");
    process.exit(1);
  }
}
