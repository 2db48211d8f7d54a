import { randomUUID } from "node:crypto";
import type { Db } from "@kikitori/shared/db";
import { resetUser } from "@kikitori/shared/server";
import { createTestDatabase } from "../../../tests/support/db.ts";
import { resetDuePeriods } from "../src/reset.ts";

const d = (s: string) => new Date(s);

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.drop();
});
beforeEach(async () => {
  await db.user.deleteMany();
});

async function makeUser(fields: {
  periodStart: string;
  resetDate: string;
  anchorDay: number;
  plan?: "free" | "standard" | "premium";
  pendingPlan?: "free" | "standard" | "premium";
  pendingPlanAt?: string;
}) {
  const id = randomUUID();
  return db.user.create({
    data: {
      id,
      email: `${id}@example.test`,
      passwordHash: "x",
      plan: fields.plan ?? "free",
      pendingPlan: fields.pendingPlan ?? null,
      pendingPlanAt: fields.pendingPlanAt ? d(fields.pendingPlanAt) : null,
      periodStart: d(fields.periodStart),
      resetDate: d(fields.resetDate),
      anchorDay: fields.anchorDay,
      secondsUsed: 1200,
      summariesUsed: 2,
      titleRunsUsed: 3,
    },
  });
}

const get = (id: string) => db.user.findUniqueOrThrow({ where: { id } });
const iso = (x: Date | null) => x?.toISOString() ?? null;

describe("resetDuePeriods", () => {
  it("keeps a day-31 anchor across February of a non-leap year", async () => {
    const u = await makeUser({
      periodStart: "2026-12-31T09:00:00.000Z",
      resetDate: "2027-01-31T09:00:00.000Z",
      anchorDay: 31,
    });

    let r = await resetDuePeriods(db, d("2027-01-31T09:00:00.000Z"));
    expect(r).toEqual({ due: 1, periodsReset: 1, plansApplied: 0, skipped: 0 });
    let row = await get(u.id);
    expect([iso(row.periodStart), iso(row.resetDate)]).toEqual([
      "2027-01-31T09:00:00.000Z",
      "2027-02-28T09:00:00.000Z",
    ]);
    expect([row.secondsUsed, row.summariesUsed, row.titleRunsUsed]).toEqual([0, 0, 0]);

    await db.user.update({ where: { id: u.id }, data: { secondsUsed: 60 } });
    r = await resetDuePeriods(db, d("2027-02-28T10:00:00.000Z"));
    expect(r.periodsReset).toBe(1);
    row = await get(u.id);
    expect([iso(row.periodStart), iso(row.resetDate)]).toEqual([
      "2027-02-28T09:00:00.000Z",
      "2027-03-31T09:00:00.000Z",
    ]);
    expect(row.secondsUsed).toBe(0);
  });

  it("keeps a day-31 anchor across February of a leap year", async () => {
    const u = await makeUser({
      periodStart: "2027-12-31T00:00:00.000Z",
      resetDate: "2028-01-31T00:00:00.000Z",
      anchorDay: 31,
    });
    await resetDuePeriods(db, d("2028-02-01T00:00:00.000Z"));
    let row = await get(u.id);
    expect([iso(row.periodStart), iso(row.resetDate)]).toEqual([
      "2028-01-31T00:00:00.000Z",
      "2028-02-29T00:00:00.000Z",
    ]);

    await resetDuePeriods(db, d("2028-02-29T00:00:00.000Z"));
    row = await get(u.id);
    expect([iso(row.periodStart), iso(row.resetDate)]).toEqual([
      "2028-02-29T00:00:00.000Z",
      "2028-03-31T00:00:00.000Z",
    ]);
  });

  it("rolls several missed months in one run, ending with the reset date after now", async () => {
    const u = await makeUser({
      periodStart: "2026-10-31T00:00:00.000Z",
      resetDate: "2026-11-30T00:00:00.000Z",
      anchorDay: 31,
    });
    const r = await resetDuePeriods(db, d("2027-03-05T00:00:00.000Z"));
    expect(r.periodsReset).toBe(1);
    const row = await get(u.id);
    expect([iso(row.periodStart), iso(row.resetDate)]).toEqual([
      "2027-02-28T00:00:00.000Z",
      "2027-03-31T00:00:00.000Z",
    ]);
  });

  it("changes nothing when run twice for the same now", async () => {
    const u = await makeUser({
      periodStart: "2027-03-15T12:00:00.000Z",
      resetDate: "2027-04-15T12:00:00.000Z",
      anchorDay: 15,
      plan: "premium",
      pendingPlan: "free",
      pendingPlanAt: "2027-04-15T12:00:00.000Z",
    });
    const now = d("2027-04-20T00:00:00.000Z");
    const first = await resetDuePeriods(db, now);
    expect(first).toEqual({ due: 1, periodsReset: 1, plansApplied: 1, skipped: 0 });
    const afterFirst = await get(u.id);

    const second = await resetDuePeriods(db, now);
    expect(second).toEqual({ due: 0, periodsReset: 0, plansApplied: 0, skipped: 0 });
    const afterSecond = await get(u.id);
    expect(afterSecond).toEqual(afterFirst);
    expect(afterSecond.updatedAt.getTime()).toBe(afterFirst.updatedAt.getTime());
  });

  it("applies a scheduled downgrade at its date, not before", async () => {
    const u = await makeUser({
      periodStart: "2027-05-10T08:00:00.000Z",
      resetDate: "2027-06-10T08:00:00.000Z",
      anchorDay: 10,
      plan: "premium",
      pendingPlan: "standard",
      pendingPlanAt: "2027-06-10T08:00:00.000Z",
    });

    let r = await resetDuePeriods(db, d("2027-06-10T07:59:59.999Z"));
    expect(r.due).toBe(0);
    let row = await get(u.id);
    expect(row.plan).toBe("premium");
    expect(row.pendingPlan).toBe("standard");

    r = await resetDuePeriods(db, d("2027-06-10T08:00:00.000Z"));
    expect(r).toEqual({ due: 1, periodsReset: 1, plansApplied: 1, skipped: 0 });
    row = await get(u.id);
    expect(row.plan).toBe("standard");
    expect(row.pendingPlan).toBeNull();
    expect(row.pendingPlanAt).toBeNull();
    expect([iso(row.periodStart), iso(row.resetDate)]).toEqual([
      "2027-06-10T08:00:00.000Z",
      "2027-07-10T08:00:00.000Z",
    ]);
    expect([row.secondsUsed, row.summariesUsed, row.titleRunsUsed]).toEqual([0, 0, 0]);
  });

  it("keeps a scheduled change that is not due yet while resetting the period", async () => {
    const u = await makeUser({
      periodStart: "2027-05-10T00:00:00.000Z",
      resetDate: "2027-06-10T00:00:00.000Z",
      anchorDay: 10,
      plan: "standard",
      pendingPlan: "free",
      pendingPlanAt: "2027-07-10T00:00:00.000Z",
    });
    await resetDuePeriods(db, d("2027-06-11T00:00:00.000Z"));
    const row = await get(u.id);
    expect(row.plan).toBe("standard");
    expect(row.pendingPlan).toBe("free");
    expect(iso(row.pendingPlanAt)).toBe("2027-07-10T00:00:00.000Z");
    expect(row.secondsUsed).toBe(0);
  });

  it("leaves a user who is not due untouched", async () => {
    const due = await makeUser({
      periodStart: "2027-01-01T00:00:00.000Z",
      resetDate: "2027-02-01T00:00:00.000Z",
      anchorDay: 1,
    });
    const notDue = await makeUser({
      periodStart: "2027-01-20T00:00:00.000Z",
      resetDate: "2027-02-20T00:00:00.000Z",
      anchorDay: 20,
      plan: "standard",
    });
    const before = await get(notDue.id);
    const r = await resetDuePeriods(db, d("2027-02-05T00:00:00.000Z"));
    expect(r).toEqual({ due: 1, periodsReset: 1, plansApplied: 0, skipped: 0 });
    expect(await get(notDue.id)).toEqual(before);
    expect((await get(due.id)).secondsUsed).toBe(0);
  });

  it("walks every due user across batches", async () => {
    const ids = [];
    for (let i = 0; i < 7; i++) {
      ids.push(
        (
          await makeUser({
            periodStart: "2027-01-03T00:00:00.000Z",
            resetDate: "2027-02-03T00:00:00.000Z",
            anchorDay: 3,
          })
        ).id,
      );
    }
    const r = await resetDuePeriods(db, d("2027-02-04T00:00:00.000Z"), { batchSize: 3 });
    expect(r).toEqual({ due: 7, periodsReset: 7, plansApplied: 0, skipped: 0 });
    for (const id of ids) expect(iso((await get(id)).resetDate)).toBe("2027-03-03T00:00:00.000Z");
  });
});

describe("resetUser", () => {
  it("does not write when the row changed since it was read (no double reset)", async () => {
    const u = await makeUser({
      periodStart: "2027-01-01T00:00:00.000Z",
      resetDate: "2027-02-01T00:00:00.000Z",
      anchorDay: 1,
    });
    const now = d("2027-02-02T00:00:00.000Z");
    const snapshot = { ...u };
    expect(await resetUser(db, snapshot, now)).toEqual({
      periodReset: true,
      planApplied: false,
      resetDate: d("2027-03-01T00:00:00.000Z"),
    });
    await db.user.update({ where: { id: u.id }, data: { secondsUsed: 30 } });
    // A second runner holding the stale snapshot must not zero the new period's usage.
    expect(await resetUser(db, snapshot, now)).toBeNull();
    expect((await get(u.id)).secondsUsed).toBe(30);
  });
});
