// PostgreSQL and Redis for `npm start` and `npm test`. Whatever already answers at DATABASE_URL /
// REDIS_URL is used as it is. Otherwise, for a local address, in this order:
//   PostgreSQL: a local Debian cluster that is installed but stopped; else the server from npm
//               (scripts/lib/postgres.mjs, data in var/postgres); else apt-get install postgresql;
//   Redis:      redis-server if installed; else apt-get install redis-server; then run it on the
//               URL's port with its data in var/redis.
// apt-get runs only as root or with passwordless sudo on Debian/Ubuntu and never with NO_INSTALL=1
// (scripts/lib/apt.mjs); otherwise the error names the exact command. The servers started here are
// stopped by the returned stop(). See docs/decisions/0023-two-commands-bare-machine.md.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { aptInstall, has, installCommand } from "./apt.mjs";
import { startEmbeddedPostgres } from "./postgres.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export const DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/kikitori";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

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

const isLocal = (h) => ["127.0.0.1", "localhost", "::1", "[::1]"].includes(h);
const hostOf = (u) => u.hostname.replace(/^\[|\]$/g, "");

/** Debian clusters (pg_ctlcluster) configured for `port`, as [version, name]. */
function debianClusters(port) {
  if (!has("pg_ctlcluster") || !existsSync("/etc/postgresql")) return [];
  const found = [];
  for (const ver of readdirSync("/etc/postgresql")) {
    for (const name of readdirSync(path.join("/etc/postgresql", ver))) {
      try {
        const conf = readFileSync(path.join("/etc/postgresql", ver, name, "postgresql.conf"), "utf8");
        const p = Number(conf.match(/^\s*port\s*=\s*(\d+)/m)?.[1] ?? 5432);
        if (p === port) found.push([ver, name]);
      } catch {}
    }
  }
  return found;
}

async function startDebianCluster(host, port, log) {
  for (const [ver, name] of debianClusters(port)) {
    log(`starting the local PostgreSQL cluster ${ver}/${name}`);
    spawnSync("pg_ctlcluster", ["--skip-systemctl-redirect", ver, name, "start"], { stdio: "inherit" });
    if (await waitFor(host, port, 15000)) return true;
  }
  return false;
}

async function ensurePostgres(url, log, warn) {
  const u = new URL(url);
  const host = hostOf(u);
  const port = Number(u.port || 5432);
  if (await canConnect(host, port)) return { note: `PostgreSQL at ${host}:${port} (already running)` };
  if (!isLocal(host)) throw new Error(`PostgreSQL at ${host}:${port} does not answer (DATABASE_URL).`);
  if (await startDebianCluster(host, port, log)) return { note: `the local PostgreSQL cluster on ${port}` };

  const embedded = await startEmbeddedPostgres(url, { root, log });
  if (embedded.stop) return embedded;
  warn(`the PostgreSQL from npm cannot be used here: ${embedded.reason}`);

  // Debian's package makes a cluster on 5432: only of use when DATABASE_URL names that port.
  if (port === 5432 && aptInstall(["postgresql"], { log, warn, why: "PostgreSQL" })) {
    if ((await waitFor(host, port, 5000)) || (await startDebianCluster(host, port, log)))
      return { note: "PostgreSQL from Debian's package" };
  }
  throw new Error(
    `PostgreSQL is not running on ${host}:${port} and could not be started.\n` +
      `  Install it with: ${installCommand(["postgresql"])}   (or set DATABASE_URL to a reachable server)`,
  );
}

async function ensureRedis(url, log, warn) {
  const u = new URL(url);
  const host = hostOf(u);
  const port = Number(u.port || 6379);
  if (await canConnect(host, port)) return { note: `Redis at ${host}:${port} (already running)` };
  if (!isLocal(host)) throw new Error(`Redis at ${host}:${port} does not answer (REDIS_URL).`);
  if (!has("redis-server")) {
    // No npm package ships a Redis server: Debian's package, where we may install it.
    aptInstall(["redis-server"], { log, warn, why: "Redis" });
    // Debian starts its own service on 6379 where an init system runs.
    if (await waitFor(host, port, port === 6379 ? 3000 : 0)) return { note: "Redis from Debian's package" };
  }
  if (has("redis-server")) {
    const dir = path.join(root, "var/redis");
    mkdirSync(dir, { recursive: true });
    const pidFile = path.join(dir, "redis.pid");
    // One var/redis takes one server: one already running on another port (or it would have
    // answered) belongs to another run, which is left alone.
    try {
      const pid = Number(readFileSync(pidFile, "utf8"));
      process.kill(pid, 0);
      throw new Error(
        `the Redis of var/redis is already running (pid ${pid}), not on ${port}.\n` +
          "  Use its port in REDIS_URL, or stop the command that started it (Ctrl-C).",
      );
    } catch (err) {
      if (err.message.startsWith("the Redis")) throw err;
    }
    log(`starting Redis on ${host}:${port}, data in var/redis`);
    const args = ["--daemonize", "yes", "--bind", host, "--port", String(port), "--dir", dir];
    args.push("--pidfile", pidFile, "--appendonly", "yes", "--maxmemory-policy", "noeviction");
    args.push("--logfile", path.join(dir, "redis.log"));
    const r = spawnSync("redis-server", args, { stdio: "inherit" });
    if (r.status === 0 && (await waitFor(host, port, 10000))) {
      return {
        note: `Redis on ${port} (var/redis)`,
        stop: async () => {
          log("stopping Redis");
          try {
            process.kill(Number(readFileSync(pidFile, "utf8")), "SIGTERM");
          } catch {}
          const end = Date.now() + 15000;
          while (Date.now() < end && (await canConnect(host, port, 300))) await new Promise((r) => setTimeout(r, 200));
        },
      };
    }
  }
  throw new Error(
    `Redis is not running on ${host}:${port} and could not be started.\n` +
      `  Install it with: ${installCommand(["redis-server"])}   (or set REDIS_URL to a reachable server)`,
  );
}

/**
 * Makes PostgreSQL and Redis answer at DATABASE_URL / REDIS_URL (or the defaults). Returns stop(),
 * which stops the servers this call started (none when they were already running).
 */
export async function ensureServices({ log = console.log, warn = log } = {}) {
  const started = [];
  const stop = async () => {
    for (const s of started.reverse()) await s.stop();
    started.length = 0;
  };
  try {
    for (const [ensure, url] of [
      [ensurePostgres, process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL],
      [ensureRedis, process.env.REDIS_URL ?? DEFAULT_REDIS_URL],
    ]) {
      const s = await ensure(url, log, warn);
      log(`using ${s.note}`);
      if (s.stop) started.push(s);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}
