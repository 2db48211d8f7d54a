// The stack a worker process joins in a lifecycle test: a test database made before the file's tests and
// dropped after them, and a Redis key prefix per test whose keys are deleted at the end.
import { createRedis } from "@kikitori/shared/server";
import { createTestDatabase, uniquePrefix } from "../support/db.ts";
import { deletePrefix } from "./service-process.ts";

export function useWorkerStack() {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  const prefixes: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 30_000);
  afterAll(async () => {
    const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "client");
    for (const prefix of prefixes) await deletePrefix(redis, prefix);
    redis.disconnect();
    await database?.drop();
  });
  return {
    databaseUrl: () => {
      if (!database) throw new Error("the test database is made in beforeAll");
      return database.url;
    },
    /** A fresh key prefix, deleted after the file's tests. */
    prefix: (name: string) => {
      const prefix = uniquePrefix(name);
      prefixes.push(prefix);
      return prefix;
    },
  };
}
