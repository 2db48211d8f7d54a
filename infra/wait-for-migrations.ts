// Init step of every app pod (k8s/base/*.yaml, `wait-for-migrations` initContainer): waits until the
// newest migration shipped in this image (prisma/migrations/<stamp>_<name>) is recorded as finished in
// `_prisma_migrations`, i.e. until the migration Job of this release has run. Without it a new image
// could start against an old schema.
//   node --import tsx infra/wait-for-migrations.ts
// DATABASE_URL names the database; WAIT_TIMEOUT_MS (default 600000) bounds the wait, after which the
// process exits 1 (Kubernetes restarts the init container with back-off); WAIT_INTERVAL_MS (default
// 2000) is the polling period.
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { listMigrations } from "../services/shared/src/server/migrate.ts";

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, "../prisma/migrations");

/** Name of the newest migration in `dir` (the directory names sort by their timestamp prefix). */
export async function newestMigration(dir = MIGRATIONS_DIR): Promise<string> {
  const all = await listMigrations(dir);
  const last = all.at(-1);
  if (!last) throw new Error(`no migrations in ${dir}`);
  return last.name;
}

/** True when `name` is applied (finished, not rolled back) in the database. False if the table is missing. */
export async function isApplied(databaseUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM "_prisma_migrations"
         WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL
       ) AS found`,
      [name],
    );
    return rows[0]?.found === true;
  } catch (err) {
    if ((err as { code?: string }).code === "42P01") return false; // no _prisma_migrations table yet
    throw err;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Polls until the newest migration is applied; resolves with its name, rejects after `timeoutMs`. */
export async function waitForMigrations(opts: {
  databaseUrl: string;
  dir?: string;
  timeoutMs?: number;
  intervalMs?: number;
  log?: (m: string) => void;
}): Promise<string> {
  const name = await newestMigration(opts.dir);
  const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
  const log = opts.log ?? (() => {});
  let last = "";
  for (;;) {
    try {
      if (await isApplied(opts.databaseUrl, name)) return name;
      last = "not applied yet";
    } catch (err) {
      last = (err as Error).message; // database not reachable yet: keep waiting
    }
    if (Date.now() >= deadline) throw new Error(`migration ${name} is not applied (${last})`);
    log(`waiting for migration ${name}: ${last}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 2_000));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error("[wait-for-migrations] DATABASE_URL is not set");
    process.exit(1);
  }
  try {
    const name = await waitForMigrations({
      databaseUrl,
      timeoutMs: Number(process.env.WAIT_TIMEOUT_MS ?? 600_000),
      intervalMs: Number(process.env.WAIT_INTERVAL_MS ?? 2_000),
      log: (m) => console.log(`[wait-for-migrations] ${m}`),
    });
    console.log(`[wait-for-migrations] ${name} is applied`);
    process.exit(0);
  } catch (err) {
    console.error(`[wait-for-migrations] ${(err as Error).message}`);
    process.exit(1);
  }
}
