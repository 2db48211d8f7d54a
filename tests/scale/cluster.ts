// A scaled-out Kikitori on one machine, as in production: several gateway processes and worker
// processes (each `node --import tsx services/<name>/src/main.ts`) sharing one PostgreSQL database,
// one Redis prefix and one S3 bucket. Used by tests/scale/*.int.test.ts and scripts/bench-scale.ts.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { PlanName } from "@kikitori/shared";
import { createRedis } from "@kikitori/shared/server";
import { TokenSigner } from "../../services/gateway/src/auth/tokens.ts";
import {
  deletePrefix,
  freePort,
  type ServiceProcess,
  stackEnv,
  startService,
  waitForStatus,
} from "../infra/service-process.ts";
import { createTestDatabase, insertVerifiedUser, uniquePrefix } from "../support/db.ts";
import type { TestGateway } from "../support/gateway.ts";

export type WorkerName = "transcription-worker" | "text-worker";

export interface GatewayProcess extends ServiceProcess {
  url: string;
  port: number;
  /** Its ops server: /metrics and the detailed /readyz. */
  opsUrl: string;
}
export interface WorkerProcess extends ServiceProcess {
  name: WorkerName;
  port: number;
  /** Prometheus text of its /metrics. */
  metrics: () => Promise<string>;
}

export interface Cluster {
  prefix: string;
  databaseUrl: string;
  db: Awaited<ReturnType<typeof createTestDatabase>>["db"];
  /** Environment every process of the cluster shares (database, Redis prefix, bucket, JWT secret). */
  env: Record<string, string>;
  signer: TokenSigner;
  gateways: GatewayProcess[];
  workers: WorkerProcess[];
  startGateway: (extra?: Record<string, string>) => Promise<GatewayProcess>;
  startWorker: (name: WorkerName, extra?: Record<string, string>) => Promise<WorkerProcess>;
  /** A verified user row and an ID token any gateway accepts. */
  createUser: (plan?: "free" | "standard" | "premium") => Promise<{ uid: string; email: string; token: string }>;
  /** The helpers of tests/support/pipeline.ts take a TestGateway: this one talks to `gateway`. */
  asTestGateway: (gateway: GatewayProcess) => TestGateway;
  /** SIGTERMs every process still running, waits for them, drops the database and the Redis keys. */
  close: () => Promise<void>;
}

export async function startCluster(opts: { logLevel?: string; env?: Record<string, string> } = {}): Promise<Cluster> {
  const database = await createTestDatabase();
  const prefix = uniquePrefix("scale");
  const jwtSecret = randomBytes(32).toString("base64url");
  const env: Record<string, string> = {
    NODE_ENV: "test",
    LOG_LEVEL: opts.logLevel ?? process.env.TEST_LOG_LEVEL ?? "info",
    ...stackEnv(database.url, prefix),
    JWT_SECRET: jwtSecret,
    WEB_DIST_DIR: "web/dist",
    RATE_LIMIT_AUTH_PER_IP_PER_MINUTE: "100000",
    RATE_LIMIT_AUTH_PER_EMAIL_PER_15_MIN: "100000",
    LOGIN_FAILURES_PER_SOURCE: "100000",
    LOGIN_FAILURES_PER_ACCOUNT_SOURCE: "100000",
    LOGIN_SLOWDOWN_AFTER: "100000",
    UPLOADS_IN_FLIGHT_PER_USER: "100",
    ...opts.env,
  };
  const signer = new TokenSigner(jwtSecret, 3600);
  const gateways: GatewayProcess[] = [];
  const workers: WorkerProcess[] = [];

  const startGateway = async (extra: Record<string, string> = {}) => {
    const port = await freePort();
    const opsPort = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const opsUrl = `http://127.0.0.1:${opsPort}`;
    const svc = startService("gateway", {
      ...env,
      HOST: "127.0.0.1",
      PORT: String(port),
      OPS_HOST: "127.0.0.1",
      OPS_PORT: String(opsPort),
      PUBLIC_URL: url,
      ...extra,
    });
    // /readyz: database and Redis are there, and the bucket (the first gateway creates it at start).
    await waitForStatus(`${url}/readyz`, 200, svc, 60_000);
    const g = Object.assign(svc, { url, port, opsUrl });
    gateways.push(g);
    return g;
  };

  const startWorker = async (name: WorkerName, extra: Record<string, string> = {}) => {
    const port = await freePort();
    const svc = startService(name, {
      ...env,
      OPS_HOST: "127.0.0.1",
      OPS_PORT: String(port),
      LOCK_DURATION_MS: "5000",
      STALLED_INTERVAL_MS: "3000",
      ...extra,
    });
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, svc, 60_000);
    const w = Object.assign(svc, {
      name,
      port,
      metrics: () => fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()),
    });
    workers.push(w);
    return w;
  };

  const createUser = async (plan: PlanName = "premium") => {
    const { uid, email } = await insertVerifiedUser(database.db, { plan });
    return { uid, email, token: await signer.sign({ sub: uid, email, email_verified: true }) };
  };

  const asTestGateway = (g: GatewayProcess) =>
    ({ url: g.url, db: database.db, databaseUrl: database.url, prefix, env, gw: { signer } }) as unknown as TestGateway;

  const close = async () => {
    const running = [...workers, ...gateways].filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    for (const p of running) p.child.kill("SIGTERM");
    await Promise.all(
      running.map((p) =>
        Promise.race([p.exited, new Promise((r) => setTimeout(r, 20_000)).then(() => p.child.kill("SIGKILL"))]),
      ),
    );
    const redis = createRedis(env.REDIS_URL, "client");
    await deletePrefix(redis, prefix).catch(() => {});
    await redis.quit();
    await database.drop();
  };

  return {
    prefix,
    databaseUrl: database.url,
    db: database.db,
    env,
    signer,
    gateways,
    workers,
    startGateway,
    startWorker,
    createUser,
    asTestGateway,
    close,
  };
}

/** POST /api/upload with an explicit X-Request-Id (the correlation id of the whole job). */
export async function uploadWithRequestId(
  gatewayUrl: string,
  token: string,
  file: { data: Uint8Array; name: string; type?: string },
  requestId: string,
  fields: Record<string, string> = { model: "meeting", language: "en" },
): Promise<{ status: number; body: any; requestId: string | null }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("file", new Blob([new Uint8Array(file.data)], { type: file.type ?? "audio/mpeg" }), file.name);
  const res = await fetch(`${gatewayUrl}/api/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "x-request-id": requestId },
    body: form,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, requestId: res.headers.get("x-request-id") };
}

/** The JSON log lines a process wrote (pino), skipping anything else. */
export function logLines(svc: Pick<ServiceProcess, "stdout" | "output">): Array<Record<string, any>> {
  const out: Array<Record<string, any>> = [];
  for (const line of (svc.stdout?.() ?? svc.output()).split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line));
    } catch {}
  }
  return out;
}

/** Names of the direct child processes of `pid` (Linux /proc), e.g. pocketsphinx_continuous while a chunk runs. */
export function childProcessNames(pid: number): string[] {
  const names: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    if (ppid === pid) names.push(comm);
  }
  return names;
}

/** Sum of the samples of one Prometheus series family matching every given label (text format). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let found = false;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      sum += Number(m[3]);
      found = true;
    }
  }
  return found ? sum : Number.NaN;
}
