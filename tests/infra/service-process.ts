// Runs one service as its own process (as in production: `node [its flags] --import tsx services/<name>/src/main.ts`)
// for lifecycle tests: wait for its ops endpoints, signal it, collect its exit.
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import type { Redis } from "ioredis";
import { nodeFlagsOf } from "../../scripts/lib/node-flags.mjs";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  /** What the process wrote to stdout alone (its JSON log lines, never split by stderr chunks). */
  stdout?: () => string;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

export function startService(name: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [...nodeFlagsOf(name), "--import", "tsx", `services/${name}/src/main.ts`], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let stdout = "";
  child.stdout?.on("data", (b: Buffer) => {
    out += b.toString();
    stdout += b.toString();
  });
  child.stderr?.on("data", (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? -1));
  });
  return { child, output: () => out, stdout: () => stdout, exited };
}

/** Polls `url` until it answers `status`; fails with the process output after `timeoutMs`. */
export async function waitForStatus(url: string, status: number, svc: ServiceProcess, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  let ended = false;
  void svc.exited.then(() => {
    ended = true;
  });
  while (Date.now() < deadline) {
    if (ended) throw new Error(`process ended before ${url} answered ${status}\n${svc.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      const body = await res.text();
      if (res.status === status) return body;
      last = `${res.status} ${body}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last})\n${svc.output()}`);
}

/**
 * What a service needs to join a test stack: its database, the local Redis under `prefix`, and the S3
 * stand-in (started by the global setup) with a bucket of its own for the prefix.
 */
export function stackEnv(databaseUrl: string, prefix: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    REDIS_PREFIX: prefix,
    S3_ENDPOINT: process.env.S3_ENDPOINT ?? "",
    S3_ACCESS_KEY: process.env.S3_ACCESS_KEY ?? "S3RVER",
    S3_SECRET_KEY: process.env.S3_SECRET_KEY ?? "S3RVER",
    S3_REGION: process.env.S3_REGION ?? "us-east-1",
    S3_BUCKET: `b-${prefix}`.toLowerCase().slice(0, 60),
  };
}

/**
 * The billing service as a child process on `port` with the embedded card provider, once ready
 * (stopped again if it does not get ready). `gatewayEnv` is the test gateway's environment.
 */
export async function startLocalBilling(gatewayEnv: Record<string, string>, port: number): Promise<ServiceProcess> {
  const billing = startService("billing", {
    ...gatewayEnv,
    OPS_HOST: "127.0.0.1",
    OPS_PORT: String(port),
    PAYMENT_PROVIDER: "local",
    BILLING_SWEEP_EVERY_MS: "3600000",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
  });
  try {
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, billing, 30_000);
  } catch (err) {
    await stopService(billing);
    throw err;
  }
  return billing;
}

/** SIGTERM, then waits for the exit; nothing when it has already exited. */
export async function stopService(svc: ServiceProcess): Promise<void> {
  if (svc.child.exitCode !== null || svc.child.signalCode !== null) return;
  svc.child.kill("SIGTERM");
  await svc.exited;
}

/** Resolves with the exit code, or rejects if the process is still running after `ms` (and kills it). */
export async function exitWithin(svc: ServiceProcess, ms: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      svc.exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          svc.child.kill("SIGKILL");
          reject(new Error(`process did not exit within ${ms} ms\n${svc.output()}`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Deletes every Redis key under a test prefix. */
export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== "0");
}
