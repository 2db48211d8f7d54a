// reserveCount (services/shared/src/server/quota.ts) on a real database: the limit is the one of the
// user's plan taken from the quotas passed in (quotasFromConfig over the plan catalogue), one guarded
// UPDATE per reservation, so concurrent requests never overspend.
import type { PlanName, PlanQuota } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { releaseCount, reserveCount } from "@kikitori/shared/server";
import { createTestDatabase, insertVerifiedUser } from "../../../tests/support/db.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.drop();
});

const q = (maxSummaries: number, maxTitleRuns: number): PlanQuota => ({ maxMinutes: 10, maxSummaries, maxTitleRuns });
const QUOTAS: Record<PlanName, PlanQuota> = { free: q(1, 2), standard: q(2, 3), premium: q(3, 4) };

async function reserveAll(uid: string, kind: "summary" | "titles", times: number, quotas = QUOTAS) {
  const out: boolean[] = [];
  for (let i = 0; i < times; i++) out.push(await reserveCount(db, uid, kind, quotas));
  return out.filter(Boolean).length;
}

it("stops at the limit of the user's own plan, for each plan and kind", async () => {
  for (const plan of ["free", "standard", "premium"] as const) {
    const { uid } = await insertVerifiedUser(db, { plan });
    expect([await reserveAll(uid, "summary", 6), await reserveAll(uid, "titles", 6)]).toEqual([
      QUOTAS[plan].maxSummaries,
      QUOTAS[plan].maxTitleRuns,
    ]);
  }
});

it("charges concurrent reservations exactly up to the limit", async () => {
  const { uid } = await insertVerifiedUser(db, { plan: "premium" });
  const results = await Promise.all(Array.from({ length: 12 }, () => reserveCount(db, uid, "summary", QUOTAS)));
  expect(results.filter(Boolean)).toHaveLength(3);
  const row = await db.user.findUniqueOrThrow({ where: { id: uid } });
  expect(row.summariesUsed).toBe(3);
});

it("follows a plan change: the new plan's limit applies at once", async () => {
  const { uid } = await insertVerifiedUser(db, { plan: "free" });
  expect(await reserveAll(uid, "summary", 3)).toBe(1);
  await db.user.update({ where: { id: uid }, data: { plan: "premium" } });
  expect(await reserveAll(uid, "summary", 5)).toBe(2);
  await releaseCount(db, uid, "summary");
  expect(await reserveAll(uid, "summary", 5)).toBe(1);
});

it("refuses a plan that has no configured quotas instead of giving it another plan's", async () => {
  const { uid } = await insertVerifiedUser(db, { plan: "premium" });
  const { premium: _, ...withoutPremium } = QUOTAS;
  await expect(reserveCount(db, uid, "summary", withoutPremium as Record<PlanName, PlanQuota>)).rejects.toMatchObject({
    code: "INTERNAL",
  });
  const row = await db.user.findUniqueOrThrow({ where: { id: uid } });
  expect(row.summariesUsed).toBe(0);
});
