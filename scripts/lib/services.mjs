// Checks that PostgreSQL and Redis answer; starts local ones when their binaries are installed but
// not running; otherwise stops with a message naming what to install or configure.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import net from "node:net";

export function canConnect(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
  });
}

/** Polls until host:port accepts a connection; false after `ms`. */
export async function waitFor(host, port, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await canConnect(host, port)) return true;
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

const isLocal = (h) => ["127.0.0.1", "localhost", "::1"].includes(h);
const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;

async function ensurePostgres(url, log) {
  const u = new URL(url);
  const host = u.hostname;
  const port = Number(u.port || 5432);
  if (await canConnect(host, port)) return;
  if (!isLocal(host)) throw new Error(`PostgreSQL at ${host}:${port} does not answer (DATABASE_URL).`);
  if (has("pg_ctlcluster") && existsSync("/etc/postgresql")) {
    for (const ver of readdirSync("/etc/postgresql")) {
      log(`starting local PostgreSQL ${ver}`);
      spawnSync("pg_ctlcluster", ["--skip-systemctl-redirect", ver, "main", "start"], { stdio: "inherit" });
    }
    if (await waitFor(host, port, 15000)) return;
  }
  throw new Error(
    `PostgreSQL is not running on ${host}:${port} and no local cluster could be started.\n` +
      "  Install it with: sudo apt-get install -y postgresql   (or set DATABASE_URL to a reachable server)",
  );
}

async function ensureRedis(url, log) {
  const u = new URL(url);
  const host = u.hostname;
  const port = Number(u.port || 6379);
  if (await canConnect(host, port)) return;
  if (!isLocal(host)) throw new Error(`Redis at ${host}:${port} does not answer (REDIS_URL).`);
  if (has("redis-server")) {
    log(`starting local Redis on ${port}`);
    mkdirSync("var/redis", { recursive: true });
    execFileSync("redis-server", [
      "--daemonize",
      "yes",
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--dir",
      `${process.cwd()}/var/redis`,
      "--appendonly",
      "yes",
      "--maxmemory-policy",
      "noeviction",
      "--logfile",
      `${process.cwd()}/var/redis/redis.log`,
    ]);
    if (await waitFor(host, port, 10000)) return;
  }
  throw new Error(
    `Redis is not running on ${host}:${port} and could not be started.\n` +
      "  Install it with: sudo apt-get install -y redis-server   (or set REDIS_URL to a reachable server)",
  );
}

export async function ensureServices({ log = console.log } = {}) {
  await ensurePostgres(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kikitori", log);
  await ensureRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", log);
}
