// `npm run db:migrate`: creates the database if needed and applies prisma/migrations.
// MIGRATE_LOCK_TIMEOUT (default 10s) and MIGRATE_STATEMENT_TIMEOUT (default 15min) bound each statement.
import path from "node:path";
import { ensureDatabase, migrate } from "../services/shared/src/server/migrate.ts";

const url = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kikitori";
const dir = path.resolve(import.meta.dirname, "../prisma/migrations");
try {
  if (await ensureDatabase(url)) console.log(`[migrate] created database ${new URL(url).pathname.slice(1)}`);
  const r = await migrate(url, dir, (m) => console.log(`[migrate] ${m}`), {
    lockTimeout: process.env.MIGRATE_LOCK_TIMEOUT || undefined,
    statementTimeout: process.env.MIGRATE_STATEMENT_TIMEOUT || undefined,
  });
  console.log(`[migrate] ${r.applied.length} applied, ${r.alreadyApplied.length} already applied`);
} catch (err) {
  console.error(`[migrate] ${(err as Error).message}`);
  process.exit(1);
}
