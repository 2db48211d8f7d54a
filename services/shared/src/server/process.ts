import type http from "node:http";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { ConfigError } from "./config.ts";

/**
 * Loads a service's config once at boot; on a ConfigError prints its message (every offending
 * variable) to stderr and exits 1. Other errors are rethrown.
 */
export function configOrExit<T>(load: () => T, exit: (code: number) => never = (c) => process.exit(c)): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return exit(1);
    }
    throw err;
  }
}

/** Rejects with `timeout: <what>` when `p` has not settled within `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, what = "operation"): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timeout: ${what} after ${ms} ms`)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Stops accepting connections and resolves once open ones are closed (idle keep-alives at once). */
export function closeHttpServer(server: http.Server | undefined, graceMs = 5_000): Promise<void> {
  if (!server?.listening) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close((err) => {
      clearTimeout(force);
      if (err) reject(err);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

/** QUIT when connected (bounded), otherwise drop the connection without waiting for a reconnect. */
export async function closeRedis(redis: Redis, timeoutMs = 2_000): Promise<void> {
  if (redis.status === "end") return;
  if (redis.status !== "ready") {
    redis.disconnect();
    return;
  }
  try {
    await withTimeout(redis.quit(), timeoutMs, "redis quit");
  } catch {
    redis.disconnect();
  }
}

/** Logs and exits on errors nothing else caught, so the orchestrator restarts a clean process. */
export function installCrashHandlers(logger: Logger, exit: (code: number) => void = (c) => process.exit(c)): void {
  process.on("unhandledRejection", (reason) => {
    logger.fatal({ err: reason }, "unhandled rejection");
    exit(1);
  });
  process.on("uncaughtException", (err) => {
    logger.fatal({ err }, "uncaught exception");
    exit(1);
  });
}
