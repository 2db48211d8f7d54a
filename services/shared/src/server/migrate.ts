import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/**
 * Applies prisma/migrations/<stamp>_<name>/migration.sql in order, recording each in Prisma's own
 * `_prisma_migrations` table (same columns, SHA-256 checksums), so `prisma migrate deploy` agrees
 * with what this runner did wherever Prisma's schema engine is available. See docs/decisions/0003
 * and 0028 (timeouts, migrations outside a transaction, superseded checksums).
 */
export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

export interface MigrateOptions {
  /** How long one statement waits for a lock before the migration fails (PostgreSQL `lock_timeout`). */
  lockTimeout?: string;
  /** The longest one statement may run (PostgreSQL `statement_timeout`). */
  statementTimeout?: string;
}

/** The first line of a migration that must run outside a transaction (CREATE INDEX CONCURRENTLY). */
const NO_TRANSACTION_MARKER = "-- kikitori:no-transaction";

const LOCK_KEY = 72_707_369; // advisory lock id: one runner at a time per database
const TIMEOUT = /^\d+(ms|s|min|h)?$/;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
  /** Runs statement by statement outside a transaction (its first line is NO_TRANSACTION_MARKER). */
  noTransaction: boolean;
  /**
   * Earlier versions of this file that count as applied (superseded.sha256 next to it, lines
   * `<old checksum> <current checksum>`): only for an edit that moved statements into a later,
   * idempotent migration, so a database that ran the old version is not refused. The pair names the
   * current checksum too, so any further edit is refused again.
   */
  superseded: Array<{ old: string; current: string }>;
}

/**
 * The statements of a no-transaction migration: split at a `;` that ends a line (such a migration
 * holds plain statements: no function bodies), comment-only pieces dropped.
 */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.split("\n").some((l) => l.trim() && !l.trim().startsWith("--")));
}

export async function listMigrations(dir: string): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const out: Migration[] = [];
  for (const name of names) {
    const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
    const superseded = await readFile(path.join(dir, name, "superseded.sha256"), "utf8").then(
      (t) =>
        t.split("\n").flatMap((l) => {
          const m = /^([a-f0-9]{64})\s+([a-f0-9]{64})$/.exec(l.trim());
          return m ? [{ old: m[1], current: m[2] }] : [];
        }),
      () => [],
    );
    out.push({
      name,
      sql,
      checksum: createHash("sha256").update(sql).digest("hex"),
      noTransaction: sql.split("\n", 1)[0].trim() === NO_TRANSACTION_MARKER,
      superseded,
    });
  }
  return out;
}

export async function migrate(
  databaseUrl: string,
  dir: string,
  log: (m: string) => void = () => {},
  opts: MigrateOptions = {},
): Promise<MigrateResult> {
  const lockTimeout = opts.lockTimeout ?? "10s";
  const statementTimeout = opts.statementTimeout ?? "15min";
  for (const [k, v] of Object.entries({ lockTimeout, statementTimeout })) {
    if (!TIMEOUT.test(v)) throw new Error(`${k} ${JSON.stringify(v)} is not a PostgreSQL duration (e.g. 10s, 15min)`);
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const result: MigrateResult = { applied: [], alreadyApplied: [] };
  try {
    // Waits for another runner (no lock_timeout yet), then bounds every statement: a migration that
    // queues behind a long transaction fails after lockTimeout instead of stalling every query queued
    // behind its lock; the Job retries it.
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    await client.query(`SET lock_timeout = '${lockTimeout}'`);
    await client.query(`SET statement_timeout = '${statementTimeout}'`);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((r) => [r.migration_name, r]));
    for (const m of await listMigrations(dir)) {
      const prev = done.get(m.name);
      if (prev?.finished_at) {
        const superseded = m.superseded.some((x) => x.old === prev.checksum && x.current === m.checksum);
        if (prev.checksum !== m.checksum && !superseded) {
          throw new Error(`migration ${m.name} was changed after it was applied (checksum differs)`);
        }
        result.alreadyApplied.push(m.name);
        continue;
      }
      if (prev && !prev.finished_at) {
        throw new Error(`migration ${m.name} failed earlier and needs manual repair (see _prisma_migrations)`);
      }
      const id = randomUUID();
      if (m.noTransaction) {
        await applyOutsideTransaction(client, m, id);
        log(`applied ${m.name} (outside a transaction)`);
        result.applied.push(m.name);
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
          [id, m.checksum, m.name],
        );
        await client.query(m.sql);
        await client.query(
          `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
          [id],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      log(`applied ${m.name}`);
      result.applied.push(m.name);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return result;
}

/** Index names a migration builds (CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] "name"). */
function indexNames(sql: string): string[] {
  const re = /CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?"?([A-Za-z0-9_]+)"?/gi;
  return [...sql.matchAll(re)].map((x) => x[1]);
}

/**
 * A migration marked NO_TRANSACTION_MARKER: each statement on its own (CREATE INDEX CONCURRENTLY
 * cannot run in a transaction and does not block writes). It must be re-runnable (IF NOT EXISTS): on a
 * failure its row is removed so the next run starts it again, and an index an interrupted build left
 * INVALID is dropped first (IF NOT EXISTS would otherwise keep the useless half-built index).
 */
async function applyOutsideTransaction(client: pg.Client, m: Migration, id: string): Promise<void> {
  const names = indexNames(m.sql);
  if (names.length) {
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE NOT i.indisvalid AND c.relname = ANY($1::text[])`,
      [names],
    );
    for (const r of rows) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${r.name}"`);
  }
  await client.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
    [id, m.checksum, m.name],
  );
  const statements = splitStatements(m.sql);
  try {
    for (const statement of statements) await client.query(statement);
    const { rows: invalid } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE NOT i.indisvalid AND c.relname = ANY($1::text[])`,
      [names],
    );
    if (invalid.length) throw new Error(`index left invalid: ${invalid.map((r) => r.name).join(", ")}`);
  } catch (err) {
    await client.query(`DELETE FROM "_prisma_migrations" WHERE id = $1`, [id]).catch(() => {});
    throw new Error(
      `migration ${m.name} failed (outside a transaction; it runs again next time): ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  await client.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [
    id,
  ]);
}

/** Creates the database named in the URL when it does not exist (connects to the `postgres` database). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (!/^[a-zA-Z0-9_-]+$/.test(name)) throw new Error(`unsupported database name ${name}`);
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name}"`);
    return true;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ""));
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
