// infra/wait-for-migrations.ts, the init step that keeps every Kubernetes pod of a release from
// starting before the migration Job has applied that release's newest migration.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { isApplied, MIGRATIONS_DIR, newestMigration, waitForMigrations } from "../../infra/wait-for-migrations.ts";
import { dropDatabase, ensureDatabase, listMigrations, migrate } from "../../services/shared/src/server/migrate.ts";
import { exitWithin, REPO_ROOT } from "./service-process.ts";

const base = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
base.pathname = `/kikitori_t_wait_${randomBytes(4).toString("hex")}`;
const url = base.toString();

beforeAll(async () => {
  await ensureDatabase(url);
});
afterAll(async () => {
  await dropDatabase(url);
});

function runCli(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "infra/wait-for-migrations.ts"], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (b: Buffer) => {
    out += b.toString();
  });
  child.stderr.on("data", (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, sig) => resolve(code ?? sig ?? -1)),
  );
  return { svc: { child, exited, output: () => out }, output: () => out };
}

it("knows the newest migration shipped in the image", async () => {
  const all = await listMigrations(path.resolve(REPO_ROOT, "prisma/migrations"));
  expect(await newestMigration()).toBe(all.at(-1)!.name);
  expect(MIGRATIONS_DIR).toBe(path.resolve(REPO_ROOT, "prisma/migrations"));
});

it("waits while the database is not migrated, and lets the pod start once it is", async () => {
  const newest = await newestMigration();
  expect(await isApplied(url, newest)).toBe(false); // no _prisma_migrations table at all
  await expect(waitForMigrations({ databaseUrl: url, timeoutMs: 600, intervalMs: 100 })).rejects.toThrow(/not applied/);

  const cli = runCli({ DATABASE_URL: url, WAIT_TIMEOUT_MS: "800", WAIT_INTERVAL_MS: "100" });
  expect(await exitWithin(cli.svc, 30_000)).toBe(1);
  expect(cli.output()).toContain(`migration ${newest} is not applied`);

  // The migration Job runs while a pod is waiting: the wait ends soon after.
  const waiting = runCli({ DATABASE_URL: url, WAIT_TIMEOUT_MS: "60000", WAIT_INTERVAL_MS: "200" });
  await new Promise((r) => setTimeout(r, 1_500));
  await migrate(url, MIGRATIONS_DIR);
  expect(await exitWithin(waiting.svc, 30_000)).toBe(0);
  expect(waiting.output()).toContain(`${newest} is applied`);
  expect(await waitForMigrations({ databaseUrl: url, timeoutMs: 1_000 })).toBe(newest);
});

it("keeps waiting when only older migrations are applied (a new image before its migration Job)", async () => {
  const newest = await newestMigration();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`UPDATE "_prisma_migrations" SET finished_at = NULL WHERE migration_name = $1`, [newest]);
  expect(await isApplied(url, newest)).toBe(false);
  await c.query(`UPDATE "_prisma_migrations" SET finished_at = now() WHERE migration_name = $1`, [newest]);
  await c.end();
  expect(await isApplied(url, newest)).toBe(true);
});

it("fails (and is retried by Kubernetes) when the database cannot be reached", async () => {
  const bad = new URL(url);
  bad.port = "1";
  await expect(waitForMigrations({ databaseUrl: bad.toString(), timeoutMs: 300, intervalMs: 100 })).rejects.toThrow(
    /not applied/,
  );
});
