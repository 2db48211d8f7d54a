// The quota guard (migration 20261128000800_quota_verdict, quota-guard.ts) on a real database: a new
// upload's job written in one statement only while the plan has its seconds (jobLifecycle.
// createUnderQuota, settled by underQuota), and the same guard in a transaction (withReservedSeconds).
// Concurrent uploads of one user through two connection pools (two gateways) never overspend.
import { randomUUID } from "node:crypto";
import type { PlanName, PlanQuota } from "@kikitori/shared";
import { createDb, type Db } from "@kikitori/shared/db";
import { jobLifecycle, type NewJobRow, underQuota, withReservedSeconds } from "@kikitori/shared/server";
import { createTestDatabase, insertVerifiedUser } from "../../../tests/support/db.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let other: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  other = createDb(database.url, { max: 5 });
});
afterAll(async () => {
  await other?.$disconnect();
  await database?.drop();
});

const q = (maxMinutes: number): PlanQuota => ({ maxMinutes, maxSummaries: 1, maxTitleRuns: 1 });
const QUOTAS: Record<PlanName, PlanQuota> = { free: q(10), standard: q(20), premium: q(30) };

function newRow(userId: string, seconds: number, over: Partial<NewJobRow> = {}): NewJobRow {
  const id = randomUUID();
  return {
    id,
    userId,
    correlationId: `req-${id.slice(0, 8)}`,
    audioKey: `users/${userId}/audio/${id}.wav`,
    audioMime: "audio/wav",
    audioFormat: "wav",
    audioBytes: 1234,
    audioStream: 0,
    durationSeconds: seconds,
    reservedSeconds: seconds,
    originalName: "Interview – Zoë's 'take'.wav",
    model: "meeting",
    interviewer: "Ana",
    interviewee: "Zoë",
    tone: null,
    interviewExample: "",
    language: "de",
    audioLanguage: "auto",
    speakerCount: null,
    audioExpiresAt: new Date("2027-01-01T00:00:00.000Z"),
    glossary: ["Kikitori", 'a "quoted" term'],
    ...over,
  };
}

const create = (client: Db, row: NewJobRow, quotas = QUOTAS, at = new Date()) =>
  underQuota(client, { userId: row.userId, seconds: row.reservedSeconds, quotas, at }, (guard) =>
    jobLifecycle.createUnderQuota(client, row, guard),
  );

const held = async (uid: string) =>
  (await db.transcriptionJob.aggregate({ where: { userId: uid }, _sum: { reservedSeconds: true } }))._sum
    .reservedSeconds ?? 0;

it("writes every field of the row, queued with its audio pending", async () => {
  const { uid } = await insertVerifiedUser(db, { plan: "free" });
  const row = newRow(uid, 90, { tone: "formal", speakerCount: 3, audioStream: 1 });
  expect(await create(db, row)).toBe(true);
  const job = await db.transcriptionJob.findUniqueOrThrow({ where: { id: row.id } });
  expect(job).toMatchObject({ ...row, status: "queued", audioPending: true, version: 1 });
  expect(job.updatedAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
  // The search trigger ran on the insert: the file name is searchable.
  const [hit] = await db.$queryRawUnsafe<Array<{ n: number }>>(
    `SELECT count(*)::int AS n FROM "transcription_jobs" WHERE "id" = $1::uuid AND "search_vector" IS NOT NULL`,
    row.id,
  );
  expect(hit.n).toBe(1);
});

it("writes nothing when the seconds are not there, counting what is charged and what is held", async () => {
  const { uid } = await insertVerifiedUser(db, { plan: "free", secondsUsed: 300 });
  expect(await create(db, newRow(uid, 200))).toBe(true); // 300 used + 200 held of 600
  expect(await create(db, newRow(uid, 101))).toBe(false);
  expect(await create(db, newRow(uid, 100))).toBe(true);
  expect(await db.transcriptionJob.count({ where: { userId: uid } })).toBe(2);
  expect(await held(uid)).toBe(300);
});

it("decides concurrent uploads of one user on two gateways one after the other: never past the limit", async () => {
  for (let round = 0; round < 3; round++) {
    const { uid } = await insertVerifiedUser(db, { plan: "free" }); // 600 s
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => create(i % 2 ? other : db, newRow(uid, 70))),
    );
    expect(results.filter(Boolean)).toHaveLength(8); // 8 × 70 = 560 ≤ 600 < 630
    expect(await held(uid)).toBe(560);
  }
});

it("writes down a due monthly reset first, then reserves against the new period", async () => {
  const periodStart = new Date(Date.now() - 40 * 86_400_000);
  const { uid } = await insertVerifiedUser(db, { plan: "free", periodStart, secondsUsed: 600 });
  expect(await create(db, newRow(uid, 500))).toBe(true);
  const user = await db.user.findUniqueOrThrow({ where: { id: uid } });
  expect(user.secondsUsed).toBe(0);
  expect(user.resetDate.getTime()).toBeGreaterThan(Date.now());
});

it("applies a plan change that is due before deciding", async () => {
  const { uid } = await insertVerifiedUser(db, { plan: "premium" });
  await db.user.update({
    where: { id: uid },
    data: { pendingPlan: "free", pendingPlanAt: new Date(Date.now() - 1000) },
  });
  expect(await create(db, newRow(uid, 900))).toBe(false); // free: 600 s, not premium's 1800
  expect((await db.user.findUniqueOrThrow({ where: { id: uid } })).plan).toBe("free");
});

it("refuses an unknown user and a plan without configured quotas", async () => {
  await expect(create(db, newRow(randomUUID(), 10))).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
  const { uid } = await insertVerifiedUser(db, { plan: "standard" });
  const { standard: _, ...withoutStandard } = QUOTAS;
  await expect(create(db, newRow(uid, 10), withoutStandard as Record<PlanName, PlanQuota>)).rejects.toMatchObject({
    code: "INTERNAL",
    message: expect.stringContaining("standard"),
  });
  expect(await db.transcriptionJob.count({ where: { userId: uid } })).toBe(0);
});

it("guards a transaction's write the same way (withReservedSeconds: a retried job's hold)", async () => {
  const { uid } = await insertVerifiedUser(db, { plan: "free" });
  expect(await create(db, newRow(uid, 500))).toBe(true);
  const writes: number[] = [];
  const hold = (seconds: number) =>
    withReservedSeconds(db, uid, seconds, QUOTAS, async () => {
      writes.push(seconds);
      return true;
    });
  expect(await hold(101)).toBe(false);
  expect(await hold(100)).toBe(true);
  expect(writes).toEqual([100]);
});
