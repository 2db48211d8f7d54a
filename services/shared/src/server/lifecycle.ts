import http from "node:http";
import type { Logger } from "pino";
import client from "prom-client";

export type Check = () => Promise<void>;

/** Runs every readiness check with a timeout; returns per-check status. */
export async function runChecks(
  checks: Record<string, Check>,
  timeoutMs = 2_000,
): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const out: Record<string, string> = {};
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await Promise.race([
          check(),
          new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), timeoutMs).unref()),
        ]);
        out[name] = "ok";
      } catch (err) {
        out[name] = `error: ${(err as Error).message}`;
      }
    }),
  );
  return { ok: Object.values(out).every((v) => v === "ok"), checks: out };
}

/**
 * The answer of GET /readyz: 503 while shutting down or while a check fails, else 200 (same body shape
 * everywhere). A failing check named in `optional` only makes the status "degraded" (still 200): a
 * dependency whose short outage should fail some requests, not take every replica out of service.
 */
export async function readiness(
  checks: Record<string, Check>,
  isShuttingDown?: () => boolean,
  optional: readonly string[] = [],
): Promise<{ code: number; body: { status: string; checks: Record<string, string> } }> {
  if (isShuttingDown?.()) return { code: 503, body: { status: "shutting-down", checks: {} } };
  const r = await runChecks(checks);
  const failing = Object.entries(r.checks).filter(([, v]) => v !== "ok");
  const hard = failing.filter(([name]) => !optional.includes(name));
  const status = hard.length ? "unavailable" : failing.length ? "degraded" : "ok";
  return { code: hard.length ? 503 : 200, body: { status, checks: r.checks } };
}

/**
 * A small HTTP server for processes that have no API of their own (workers, billing):
 * GET /healthz (alive), GET /readyz (dependencies reachable), GET /metrics (Prometheus).
 */
export function startOpsServer(opts: {
  port: number;
  host?: string;
  checks: Record<string, Check>;
  /** Checks whose failure makes /readyz "degraded" but not 503 (see readiness()). */
  optionalChecks?: readonly string[];
  registry?: client.Registry;
  isShuttingDown?: () => boolean;
  extraRoutes?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean | Promise<boolean>;
}): Promise<http.Server> {
  const registry = opts.registry ?? client.register;
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && path === "/healthz") return json(200, { status: "ok" });
    if (req.method === "GET" && path === "/readyz") {
      const r = await readiness(opts.checks, opts.isShuttingDown, opts.optionalChecks);
      return json(r.code, r.body);
    }
    if (req.method === "GET" && path === "/metrics") {
      res.writeHead(200, { "content-type": registry.contentType });
      res.end(await registry.metrics());
      return;
    }
    if (opts.extraRoutes && (await opts.extraRoutes(req, res))) return;
    json(404, { error: { code: "NOT_FOUND", message: "Not found" } });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "0.0.0.0", () => resolve(server));
  });
}

/** What a shutdown step may ask: the time left before the shutdown gives up (and exits 1). */
export interface ShutdownStepContext {
  remainingMs: () => number;
}

/**
 * The time a worker gives its running jobs before cancelling them, out of what is left of the
 * shutdown: all but a reserve for handing the cancelled jobs back and closing the connections
 * (a fifth of the time left, at most 10 s).
 */
export function cancelAfterMs(remainingMs: number): number {
  return Math.max(0, remainingMs - Math.min(10_000, Math.floor(remainingMs / 5)));
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: run the steps in order (stop intake, close workers, close
 * HTTP, disconnect), each bounded; exit 0 when all finished, 1 if one failed or time ran out. A step
 * is told how much time is left (e.g. for a worker to cancel its jobs in time to hand them back).
 */
export function onShutdown(
  logger: Logger,
  steps: Array<[name: string, fn: (ctx: ShutdownStepContext) => Promise<unknown> | unknown]>,
  opts: { timeoutMs?: number; exit?: (code: number) => void } = {},
): { shutdown: (signal: string) => Promise<void>; isShuttingDown: () => boolean } {
  let shuttingDown = false;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, "shutting down");
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    const ctx: ShutdownStepContext = { remainingMs: () => Math.max(0, deadline - Date.now()) };
    const timer = setTimeout(() => {
      logger.error("shutdown timed out");
      exit(1);
    }, timeoutMs);
    timer.unref();
    let code = 0;
    for (const [name, fn] of steps) {
      try {
        await fn(ctx);
        logger.debug({ step: name }, "shutdown step done");
      } catch (err) {
        code = 1;
        logger.error({ err, step: name }, "shutdown step failed");
      }
    }
    clearTimeout(timer);
    logger.info("stopped");
    exit(code);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  return { shutdown, isShuttingDown: () => shuttingDown };
}

export { client as promClient };
