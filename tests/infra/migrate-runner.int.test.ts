// The migration runner's production behaviour on a real PostgreSQL: statements bounded by lock_timeout,
// migrations marked `-- kikitori:no-transaction` run statement by statement (CREATE INDEX CONCURRENTLY),
// an index a cut concurrent build left INVALID is rebuilt, a failed no-transaction migration runs
// again next time, and a database migrated with the earlier workspace migration (GIN indexes inside
// the transaction) is accepted through superseded.sha256 and ends with the same valid indexes.
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  dropDatabase,
  ensureDatabase,
  listMigrations,
  migrate,
  splitStatements,
} from "../../services/shared/src/server/migrate.ts";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../prisma/migrations");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const urls: string[] = [];
const dirs: string[] = [];
const newDb = async () => {
  const u = new URL(base);
  u.pathname = `/kikitori_run_${process.pid}_${urls.length}_${Date.now()}`;
  urls.push(u.toString());
  await ensureDatabase(u.toString());
  return u.toString();
};
const tmpDir = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), "mig-run-"));
  dirs.push(d);
  return d;
};
const addMigration = (dir: string, name: string, sql: string) => {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, "migration.sql"), sql);
};
const query = async (url: string, sql: string) => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
};
afterAll(async () => {
  for (const u of urls) await dropDatabase(u);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it("splits a no-transaction migration at the semicolons that end a line, dropping comments", () => {
  expect(
    splitStatements("-- kikitori:no-transaction\n-- why\nCREATE INDEX a ON t (x);\nCREATE INDEX b ON t (\n  y\n);\n"),
  ).toEqual(["-- kikitori:no-transaction\n-- why\nCREATE INDEX a ON t (x)", "CREATE INDEX b ON t (\n  y\n)"]);
});

it("gives up on a lock after lock_timeout instead of queueing behind a long transaction", async () => {
  const url = await newDb();
  const dir = tmpDir();
  addMigration(dir, "20000101000000_t", "CREATE TABLE t (id int);");
  await migrate(url, dir);
  addMigration(dir, "20000101000001_alter", "ALTER TABLE t ADD COLUMN x int;");
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("LOCK TABLE t IN ACCESS SHARE MODE");
  try {
    await expect(migrate(url, dir, () => {}, { lockTimeout: "300ms" })).rejects.toThrow(/lock timeout/);
  } finally {
    await holder.query("ROLLBACK");
    await holder.end();
  }
  // Nothing half-done: the next run applies it.
  expect((await migrate(url, dir)).applied).toEqual(["20000101000001_alter"]);
  await expect(migrate(url, dir, () => {}, { lockTimeout: "10s; DROP TABLE t" })).rejects.toThrow(
    /not a PostgreSQL duration/,
  );
});

it("builds indexes CONCURRENTLY outside a transaction, rebuilding one a cut build left INVALID", async () => {
  const url = await newDb();
  const dir = tmpDir();
  addMigration(dir, "20000101000000_t", "CREATE TABLE t (id int, v int);\nINSERT INTO t VALUES (1, 1), (2, 1);");
  await migrate(url, dir);
  // A failed concurrent build (duplicate values for a unique index) leaves an INVALID index behind.
  await expect(query(url, "CREATE UNIQUE INDEX CONCURRENTLY t_v ON t (v)")).rejects.toThrow(
    /could not create unique index/,
  );
  expect(await query(url, "SELECT indisvalid FROM pg_index WHERE indexrelid = 't_v'::regclass")).toEqual([
    { indisvalid: false },
  ]);
  addMigration(
    dir,
    "20000101000001_index",
    "-- kikitori:no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS t_v ON t (v);\nCREATE INDEX CONCURRENTLY IF NOT EXISTS t_id ON t (id);\n",
  );
  expect((await migrate(url, dir)).applied).toEqual(["20000101000001_index"]);
  expect(
    await query(
      url,
      "SELECT c.relname, i.indisvalid, i.indisunique FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname IN ('t_v', 't_id') ORDER BY 1",
    ),
  ).toEqual([
    { relname: "t_id", indisvalid: true, indisunique: false },
    { relname: "t_v", indisvalid: true, indisunique: false },
  ]);
  // The same statements inside a transaction are refused by PostgreSQL: the marker is what makes them run.
  addMigration(dir, "20000101000002_in_tx", "CREATE INDEX CONCURRENTLY t_v2 ON t (v);\nSELECT 1;");
  await expect(migrate(url, dir)).rejects.toThrow(/cannot run inside a transaction block/);
});

it("runs a failed no-transaction migration again next time (its record is removed)", async () => {
  const url = await newDb();
  const dir = tmpDir();
  addMigration(dir, "20000101000000_t", "CREATE TABLE t (id int);");
  addMigration(
    dir,
    "20000101000001_idx",
    "-- kikitori:no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS t_x ON t (x);\n",
  );
  await expect(migrate(url, dir)).rejects.toThrow(
    /20000101000001_idx failed \(outside a transaction; it runs again next time\)/,
  );
  expect(await query(url, `SELECT migration_name FROM "_prisma_migrations" ORDER BY 1`)).toEqual([
    { migration_name: "20000101000000_t" },
  ]);
  await query(url, "ALTER TABLE t ADD COLUMN x int");
  expect((await migrate(url, dir)).applied).toEqual(["20000101000001_idx"]);
});

it("accepts a database migrated with the earlier workspace migration, and ends with valid search indexes", async () => {
  const url = await newDb();
  // The repository as it was before the search indexes moved out of the transaction.
  const old = tmpDir();
  cpSync(MIGRATIONS, old, { recursive: true });
  rmSync(path.join(old, "20261126000001_workspace_search_indexes"), { recursive: true });
  rmSync(path.join(old, "20261126000000_workspace/superseded.sha256"));
  // The earlier file: today's, with the two index statements back in place of the note that they moved
  // (as the next migration has them, minus CONCURRENTLY IF NOT EXISTS). Its checksum is the one
  // superseded.sha256 accepts.
  const workspace = path.join(MIGRATIONS, "20261126000000_workspace");
  const moved = readFileSync(path.join(MIGRATIONS, "20261126000001_workspace_search_indexes/migration.sql"), "utf8")
    .split("\n")
    .filter((l) => !l.startsWith("--"))
    .join("\n")
    .replaceAll("CREATE INDEX CONCURRENTLY IF NOT EXISTS", "CREATE INDEX");
  const current = readFileSync(path.join(workspace, "migration.sql"), "utf8");
  const note = current.slice(current.indexOf("-- The two GIN search indexes are built by the next migration"));
  // That version's first comment line still named the tracker entry it was written for.
  const before = withTrackerLine(current.replace(note, moved), "The interview workspace", 13);
  const pair = readFileSync(path.join(workspace, "superseded.sha256"), "utf8")
    .split("\n")
    .find((l) => /^[a-f0-9]{64} [a-f0-9]{64}$/.test(l))!
    .split(" ");
  expect(pair).toEqual([sha256(before), sha256(current)]);
  writeFileSync(path.join(old, "20261126000000_workspace/migration.sql"), before);
  await migrate(url, old);
  const r = await migrate(url, MIGRATIONS);
  expect(r.applied).toEqual(["20261126000001_workspace_search_indexes"]);
  const indexes = await query(
    url,
    "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'transcription_jobs_search_%' ORDER BY 1",
  );
  expect(indexes).toEqual([
    { relname: "transcription_jobs_search_fts", indisvalid: true },
    { relname: "transcription_jobs_search_trgm", indisvalid: true },
  ]);
  // A fresh database gets the same indexes, built concurrently.
  const fresh = await newDb();
  expect((await migrate(fresh, MIGRATIONS)).applied).toEqual((await listMigrations(MIGRATIONS)).map((m) => m.name));
  expect(
    await query(
      fresh,
      "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'transcription_jobs_search_%' ORDER BY 1",
    ),
  ).toEqual(indexes);
  // Any other edit of an applied migration is still refused.
  const edited = tmpDir();
  cpSync(MIGRATIONS, edited, { recursive: true });
  writeFileSync(path.join(edited, "20261126000000_workspace/migration.sql"), `${before}\n-- edited\n`);
  await expect(migrate(url, edited)).rejects.toThrow(/changed after it was applied/);
});

/** A migration as first written: its first comment line with the tracker entry it named. */
function withTrackerLine(sql: string, subject: string, entry: number): string {
  const [first, ...rest] = sql.split("\n");
  expect(first.startsWith(`-- ${subject}:`)).toBe(true);
  // The old words, put back byte for byte: "(issue", the number sign and the entry's number.
  const named = ["(issue", `#${entry})`].join(" ");
  return [first.replace(`-- ${subject}:`, `-- ${subject} ${named}:`), ...rest].join("\n");
}

it("accepts databases migrated with the migrations' first versions, whose first comment named a tracker entry", async () => {
  const url = await newDb();
  const old = tmpDir();
  cpSync(MIGRATIONS, old, { recursive: true });
  const firsts: Array<[string, string, number]> = [
    ["20261123000000_speech", "Speech recognition that hears every language", 11],
    ["20261125000000_speakers", "Who said what", 12],
  ];
  for (const [name, subject, entry] of firsts) {
    const current = readFileSync(path.join(MIGRATIONS, name, "migration.sql"), "utf8");
    const before = withTrackerLine(current, subject, entry);
    const pair = readFileSync(path.join(MIGRATIONS, name, "superseded.sha256"), "utf8")
      .split("\n")
      .find((l) => /^[a-f0-9]{64} [a-f0-9]{64}$/.test(l))!
      .split(" ");
    expect(pair).toEqual([sha256(before), sha256(current)]);
    writeFileSync(path.join(old, name, "migration.sql"), before);
    rmSync(path.join(old, name, "superseded.sha256"));
  }
  await migrate(url, old);
  expect((await migrate(url, MIGRATIONS)).applied).toEqual([]);
});
