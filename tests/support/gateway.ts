import type { AddressInfo } from "node:net";
import { createLogger, createMailer, createObjectStore, createRedis, subscribeProgress } from "@kikitori/shared/server";
import { buildGateway, type Gateway, startGatewayOps } from "../../services/gateway/src/app.ts";
import { loadGatewayConfig } from "../../services/gateway/src/config.ts";
import { createDb } from "../../services/shared/src/server/db.ts";
import { freePort } from "../infra/service-process.ts";
import { createTestDatabase, uniquePrefix } from "./db.ts";
import { decodeQuotedPrintable } from "./smtp.ts";

export { freePort };

export interface TestGateway {
  url: string;
  /** The ops server: /metrics and the detailed /readyz. */
  opsUrl: string;
  gw: Gateway;
  db: Awaited<ReturnType<typeof createTestDatabase>>["db"];
  databaseUrl: string;
  prefix: string;
  env: Record<string, string>;
  close: () => Promise<void>;
}

/**
 * A real gateway on a free port: its own database and Redis prefix, the shared s3rver, and mail to
 * the given SMTP catcher. `now` lets a test move the clock of the auth service.
 */
export async function startTestGateway(
  opts: { smtpUrl?: string; env?: Record<string, string>; now?: () => Date; fixedPort?: boolean } = {},
): Promise<TestGateway> {
  const database = await createTestDatabase();
  // A known port up front, so PUBLIC_URL (used in e-mail links) points at this very gateway.
  const listenPort = opts.fixedPort ? await freePort() : 0;
  const prefix = uniquePrefix("gw");
  const env: Record<string, string> = {
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    REDIS_PREFIX: prefix,
    S3_ENDPOINT: process.env.S3_ENDPOINT!,
    S3_ACCESS_KEY: process.env.S3_ACCESS_KEY!,
    S3_SECRET_KEY: process.env.S3_SECRET_KEY!,
    S3_BUCKET: `b-${prefix}`.toLowerCase().slice(0, 60),
    PORT: String(listenPort),
    ...(listenPort ? { PUBLIC_URL: `http://127.0.0.1:${listenPort}` } : {}),
    HOST: "127.0.0.1",
    // A build of the web app elsewhere (a helper building its own copy) may be named in TEST_WEB_DIST_DIR.
    WEB_DIST_DIR: process.env.TEST_WEB_DIST_DIR ?? "web/dist",
    RATE_LIMIT_AUTH_PER_IP_PER_MINUTE: "1000",
    RATE_LIMIT_AUTH_PER_EMAIL_PER_15_MIN: "1000",
    LOGIN_FAILURES_PER_SOURCE: "1000",
    LOGIN_FAILURES_PER_ACCOUNT_SOURCE: "1000",
    LOGIN_SLOWDOWN_AFTER: "1000",
    ...(opts.smtpUrl ? { SMTP_URL: opts.smtpUrl } : {}),
    ...opts.env,
  };
  const config = loadGatewayConfig(env);
  const logger = createLogger("gateway-test", config.LOG_LEVEL);
  const redis = createRedis(config.REDIS_URL, "producer");
  const subscriber = createRedis(config.REDIS_URL, "subscriber");
  const store = createObjectStore(config);
  await store.ensureBucket();
  const mailer = createMailer(config, logger);
  const gw = await buildGateway({ config, logger, db: database.db, redis, store, mailer, now: opts.now });
  const unsubscribe = await subscribeProgress(subscriber, prefix, (e) => gw.hub.deliver(e));
  await gw.app.listen({ host: "127.0.0.1", port: listenPort });
  const port = (gw.app.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const ops = await startGatewayOps(gw, { host: "127.0.0.1", port: 0 });
  const opsUrl = `http://127.0.0.1:${(ops.address() as AddressInfo).port}`;
  return {
    url,
    opsUrl,
    gw,
    db: database.db,
    databaseUrl: database.url,
    prefix,
    env,
    close: async () => {
      await unsubscribe();
      gw.hub.closeAll();
      await gw.app.close();
      await new Promise((resolve) => ops.close(resolve));
      subscriber.disconnect();
      await redis.quit();
      await mailer.close();
      await database.drop();
    },
  };
}

/** JSON request helper: returns status, parsed body and headers. */
/**
 * Another gateway on `first`'s database, Redis prefix and bucket (as a second replica is), with
 * `env` over its settings (its mails go to files: no SMTP).
 */
export async function startReplica(
  first: TestGateway,
  env: Record<string, string> = {},
  name = "gateway-2",
): Promise<{ url: string; close: () => Promise<void> }> {
  const config = loadGatewayConfig({ ...first.env, PORT: "0", ...env });
  const logger = createLogger(name, config.LOG_LEVEL);
  const redis = createRedis(config.REDIS_URL, "producer");
  const db = createDb(first.databaseUrl, { max: 5 });
  const mailer = createMailer({ ...config, SMTP_URL: undefined }, logger);
  const gw = await buildGateway({ config, logger, db, redis, store: createObjectStore(config), mailer });
  await gw.app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  return {
    url,
    close: async () => {
      gw.hub.closeAll();
      await gw.app.close();
      await redis.quit();
      await mailer.close();
      await db.$disconnect();
    },
  };
}

export async function api(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; token?: string; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body !== undefined || opts.rawBody !== undefined) headers["content-type"] ??= "application/json";
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(base + path, {
    method,
    headers,
    body: opts.rawBody ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

/** Pulls the first http(s) link carrying a token out of a raw mail. */
export function tokenLinkFrom(raw: string): { link: string; token: string } {
  const decoded = decodeQuotedPrintable(raw);
  const m = /(https?:\/\/[^\s"<>]+\?token=([A-Za-z0-9_%-]+))/.exec(decoded);
  if (!m) throw new Error(`no token link in mail:\n${decoded.slice(0, 2000)}`);
  return { link: m[1], token: decodeURIComponent(m[2]) };
}
