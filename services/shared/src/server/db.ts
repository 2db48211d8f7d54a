import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client.ts";

export type { EmailToken, Payment, RefreshToken, Subscription, UsageEvent, User } from "./generated/client.ts";
export { Prisma, PrismaClient } from "./generated/client.ts";

export type Db = InstanceType<typeof PrismaClient>;

/** Prisma 7 on PostgreSQL through the `pg` driver adapter (no query engine binary). */
export function createDb(databaseUrl: string, opts: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: opts.max ?? 10 });
  return new PrismaClient({ adapter });
}

export async function pingDb(db: Db): Promise<void> {
  await db.$queryRawUnsafe("SELECT 1");
}
