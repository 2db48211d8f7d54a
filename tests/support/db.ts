import { randomBytes } from "node:crypto";
import path from "node:path";
import { createDb, type Db } from "../../services/shared/src/server/db.ts";
import { dropDatabase, ensureDatabase, migrate } from "../../services/shared/src/server/migrate.ts";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../prisma/migrations");

/** A fresh, migrated database per test file; `drop()` removes it. */
export async function createTestDatabase(): Promise<{ url: string; db: Db; drop: () => Promise<void> }> {
  const base = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  base.pathname = `/kikitori_t_${randomBytes(5).toString("hex")}`;
  const url = base.toString();
  await ensureDatabase(url);
  await migrate(url, MIGRATIONS);
  const db = createDb(url, { max: 5 });
  return {
    url,
    db,
    drop: async () => {
      await db.$disconnect();
      await dropDatabase(url);
    },
  };
}

/** A unique Redis key prefix (so BullMQ queues and pub/sub channels are private to one test). */
export function uniquePrefix(name = "t"): string {
  return `kt-${name}-${randomBytes(4).toString("hex")}`;
}
