import { randomUUID } from "node:crypto";
import { AppError } from "../errors.ts";
import { type PlanName, type PlanQuota, planQuota } from "../plans.ts";
import type { Db, Prisma } from "./db.ts";
import { jobLifecycle } from "./job-lifecycle.ts";
import { type QuotaGuard, type QuotaVerdict, quotaGuardParams, quotaVerdictSql } from "./quota-guard.ts";
import { dueChanges, RESET_SNAPSHOT, resetUser } from "./reset.ts";

/**
 * Quota accounting shared by the gateway and the workers. Every change is one guarded SQL
 * statement (or one transaction), so concurrent requests of one user cannot overspend and a retried
 * job cannot charge twice.
 */

const QUOTA_ROW = { ...RESET_SNAPSHOT, plan: true, secondsUsed: true } as const;

/**
 * The user's row for quota decisions, after writing down a due monthly reset / plan switch: one read
 * when nothing is due (the usual case), else reset and read again (a few times if a concurrent reset
 * or plan change got there first).
 */
async function currentQuotaRow(db: Db, userId: string, now: Date) {
  for (let attempt = 0; ; attempt++) {
    const row = await db.user.findUnique({ where: { id: userId }, select: QUOTA_ROW });
    if (!row) throw new AppError("USER_NOT_FOUND", "No account exists for this token");
    if (attempt === 3 || !dueChanges(row, now).due) return row;
    await resetUser(db, row, now);
  }
}

/** Writes down a due monthly reset / plan switch for this user before quota is read or charged. */
export async function ensureCurrentPeriod(db: Db, userId: string, now = new Date()): Promise<void> {
  await currentQuotaRow(db, userId, now);
}

export type CountKind = "summary" | "titles";
const COLUMN: Record<CountKind, "summaries_used" | "title_runs_used"> = {
  summary: "summaries_used",
  titles: "title_runs_used",
};
const LIMIT: Record<CountKind, keyof PlanQuota> = { summary: "maxSummaries", titles: "maxTitleRuns" };

/**
 * The plan's monthly limit for one kind of run, from the configured quotas (quotasFromConfig gives
 * every plan of the catalogue). A plan without quotas is an error, never another plan's limit.
 */
export function countLimit(quotas: Readonly<Record<string, PlanQuota>>, plan: string, kind: CountKind): number {
  return planQuota(quotas, plan)[LIMIT[kind]];
}

/**
 * Reserves one summary or title run: increments the counter only while it is below the limit of the
 * user's plan, in a single UPDATE guarded on that plan (a plan change between the read and the write
 * is read again and retried). Returns false when the month's quota is used up. Call `releaseCount`
 * when the run then fails, so only successful results are charged.
 */
export async function reserveCount(
  db: Db,
  userId: string,
  kind: CountKind,
  quotas: Record<PlanName, PlanQuota>,
  now = new Date(),
): Promise<boolean> {
  const col = COLUMN[kind];
  let { plan } = await currentQuotaRow(db, userId, now);
  for (let attempt = 0; attempt < 3; attempt++) {
    const rows = await db.$queryRawUnsafe<Array<{ id: string }>>(
      `UPDATE "users" SET "${col}" = "${col}" + 1, "updated_at" = now()
       WHERE "id" = $1::uuid AND "plan"::text = $2 AND "${col}" < $3::int
       RETURNING "id"`,
      userId,
      plan,
      countLimit(quotas, plan, kind),
    );
    if (rows.length === 1) return true;
    const fresh = await currentQuotaRow(db, userId, now);
    if (fresh.plan === plan) return false;
    plan = fresh.plan;
  }
  return false;
}

/** Gives back a reserved run (the generation failed). Never goes below zero. */
export async function releaseCount(db: Db, userId: string, kind: CountKind): Promise<void> {
  const col = COLUMN[kind];
  await db.$executeRawUnsafe(
    `UPDATE "users" SET "${col}" = GREATEST("${col}" - 1, 0), "updated_at" = now() WHERE "id" = $1::uuid`,
    userId,
  );
}

/** The whole seconds a recording of this length is charged (and held while it is in flight). */
export const chargeableSeconds = (seconds: number): number => Math.max(0, Math.round(seconds));

/**
 * Seconds the plan still has: its minutes, less what was charged and what in-flight uploads hold (what
 * the usage page shows; a reservation is decided by the same sum in SQL, quota-guard.ts).
 */
const leftOf = (quotas: Record<PlanName, PlanQuota>, plan: PlanName, used: number, reserved: number) =>
  planQuota(quotas, plan).maxMinutes * 60 - used - reserved;

/** Seconds held by the user's in-flight uploads (accepted, not yet charged, not failed or deleted). */
async function reservedSeconds(db: Pick<Db, "$queryRawUnsafe">, userId: string): Promise<number> {
  const [row] = await db.$queryRawUnsafe<Array<{ reserved: number }>>(
    `SELECT COALESCE(SUM("reserved_seconds"), 0)::int AS "reserved" FROM "transcription_jobs"
     WHERE "user_id" = $1::uuid AND "reserved_seconds" > 0`,
    userId,
  );
  return row?.reserved ?? 0;
}

/** Seconds of transcription left this period for the user's plan, in-flight uploads' reservations counted. */
export async function secondsLeft(
  db: Db,
  userId: string,
  quotas: Record<PlanName, PlanQuota>,
  now = new Date(),
): Promise<number> {
  const u = await currentQuotaRow(db, userId, now);
  return Math.max(0, leftOf(quotas, u.plan, u.secondsUsed, await reservedSeconds(db, userId)));
}

/**
 * Runs `attempt` (a statement or transaction that asks the quota guard and writes only on 'ok') and
 * settles its verdict: true on 'ok', false on 'short'. A due monthly reset or plan change is written
 * down first and the attempt made again, so the usual upload costs one round trip.
 */
export async function underQuota(
  db: Db,
  guard: QuotaGuard,
  attempt: (guard: QuotaGuard) => Promise<QuotaVerdict>,
): Promise<boolean> {
  for (let tries = 1; ; tries++) {
    const verdict = await attempt(guard);
    if (verdict === "ok") return true;
    if (verdict === "short") return false;
    if (verdict === "no-user") throw new AppError("USER_NOT_FOUND", "No account exists for this token");
    if (verdict === "no-plan") {
      const { plan } = await currentQuotaRow(db, guard.userId, guard.at);
      throw new AppError("INTERNAL", `No quotas are configured for the ${plan} plan`);
    }
    // 'due': a concurrent reset or plan change may get there first a few times; it cannot go on.
    if (tries === 4) {
      throw new AppError("SERVICE_UNAVAILABLE", "Your plan is being updated right now; please try again");
    }
    await ensureCurrentPeriod(db, guard.userId, guard.at);
  }
}

/**
 * Runs `write` (which records the reservation) only while the user's plan has `seconds` left, with the
 * user's row locked (the quota guard, quota-guard.ts): two uploads of one user on two gateways are
 * decided one after the other, each seeing the other's reservation. Returns false, writing nothing,
 * when the seconds are not there. (A new upload's job uses jobLifecycle.createUnderQuota: one statement.)
 */
export async function withReservedSeconds(
  db: Db,
  userId: string,
  seconds: number,
  quotas: Record<PlanName, PlanQuota>,
  write: (tx: Prisma.TransactionClient) => Promise<boolean>,
  now = new Date(),
): Promise<boolean> {
  let wrote = false;
  const allowed = await underQuota(db, { userId, seconds, quotas, at: now }, (guard) =>
    db.$transaction(async (tx) => {
      const [{ verdict }] = await tx.$queryRawUnsafe<Array<{ verdict: QuotaVerdict }>>(
        `SELECT ${quotaVerdictSql(1)} AS "verdict"`,
        ...quotaGuardParams(guard),
      );
      if (verdict === "ok") wrote = await write(tx);
      return verdict;
    }),
  );
  return allowed && wrote;
}

/** The idempotency key of a job's transcription charge (one usage event per job, whoever charges it). */
export const transcriptionChargeKey = (jobId: string) => `transcription:${jobId}`;

/**
 * Charges a job's transcription once (the full length when its transcript is complete, or the part
 * delivered when it is deleted before), releasing what the job held of the quota in the same
 * transaction. Returns true when this call charged.
 */
export function chargeTranscription(db: Db, userId: string, jobId: string, seconds: number): Promise<boolean> {
  return chargeSecondsOnce(db, userId, seconds, transcriptionChargeKey(jobId), new Date(), (tx) =>
    jobLifecycle.releaseQuota(tx, jobId),
  );
}

/**
 * Charges transcription seconds exactly once per idempotency key (e.g. `transcription:<jobId>`):
 * the usage event row and the counter change commit together; a second call with the same key
 * changes nothing. `alongside` runs in the same transaction first. Returns true when this call charged.
 */
export async function chargeSecondsOnce(
  db: Db,
  userId: string,
  seconds: number,
  idempotencyKey: string,
  now = new Date(),
  alongside?: (tx: Prisma.TransactionClient) => Promise<void>,
): Promise<boolean> {
  await ensureCurrentPeriod(db, userId, now);
  const amount = chargeableSeconds(seconds);
  return db.$transaction(async (tx) => {
    await alongside?.(tx);
    const inserted = await tx.$executeRawUnsafe(
      `INSERT INTO "usage_events" ("id", "user_id", "kind", "amount", "idempotency_key")
       VALUES ($1::uuid, $2::uuid, 'transcription_seconds', $3, $4)
       ON CONFLICT ("idempotency_key") DO NOTHING`,
      randomUUID(),
      userId,
      amount,
      idempotencyKey,
    );
    if (inserted !== 1) return false;
    await tx.$executeRawUnsafe(
      `UPDATE "users" SET "seconds_used" = "seconds_used" + $2, "updated_at" = now() WHERE "id" = $1::uuid`,
      userId,
      amount,
    );
    return true;
  });
}
