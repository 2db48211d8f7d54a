import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { dropDatabase, ensureDatabase, listMigrations, migrate } from "../../services/shared/src/server/migrate.ts";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../prisma/migrations");

describe("migration runner", () => {
  const url = (() => {
    const u = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
    u.pathname = `/kikitori_mig_${process.pid}_${Date.now()}`;
    return u.toString();
  })();
  afterAll(() => dropDatabase(url));

  it("applies every migration once, records them like Prisma, and refuses an edited one", async () => {
    expect(await ensureDatabase(url)).toBe(true);
    expect(await ensureDatabase(url)).toBe(false);
    const all = (await listMigrations(MIGRATIONS)).map((m) => m.name);
    const first = await migrate(url, MIGRATIONS);
    expect(first).toEqual({ applied: all, alreadyApplied: [] });
    const second = await migrate(url, MIGRATIONS);
    expect(second).toEqual({ applied: [], alreadyApplied: all });

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query(
      `SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    await c.end();
    const listed = await listMigrations(MIGRATIONS);
    expect(rows.map((r) => [r.migration_name, r.checksum, r.applied_steps_count, r.rolled_back_at])).toEqual(
      listed.map((m) => [m.name, m.checksum, 1, null]),
    );

    const edited = mkdtempSync(path.join(os.tmpdir(), "mig-"));
    cpSync(MIGRATIONS, edited, { recursive: true });
    writeFileSync(path.join(edited, all[0], "migration.sql"), "-- edited\nSELECT 1;");
    await expect(migrate(url, edited)).rejects.toThrow(/changed after it was applied/);
  });

  it("rolls back a failing migration and reports it", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "mig-"));
    cpSync(MIGRATIONS, dir, { recursive: true });
    const bad = path.join(dir, "99990101000000_bad");
    cpSync(path.join(dir, (await listMigrations(MIGRATIONS))[0].name), bad, { recursive: true });
    writeFileSync(path.join(bad, "migration.sql"), "CREATE TABLE ok_table (id int);\nSELECT * FROM no_such_table;");
    await expect(migrate(url, dir)).rejects.toThrow(/99990101000000_bad failed/);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const t = await c.query("SELECT to_regclass('ok_table') AS t");
    await c.end();
    expect(t.rows[0].t).toBeNull();
  });
});
