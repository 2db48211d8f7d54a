// A simulated month (and a bit) on a clock the test controls: upgrades priced pro rata, a scheduled
// downgrade, the reset and renewal on a day-31 anchor that falls on 28 February, a failed renewal,
// a switch to free — all run by the maintenance job's sweep, each run twice. At every step the
// usage record (GET /api/user-usage) has the fields of usageRecordSchema and the expected values.
import { jest } from "@jest/globals";
import { usageRecordSchema } from "@kikitori/shared";
import { chargeSecondsOnce, createLogger, reserveCount } from "@kikitori/shared/server";
import { api } from "../../../tests/support/gateway.ts";
import { processMaintenance } from "../src/handlers/maintenance.ts";
import type { SweepResult } from "../src/sweep.ts";
import { addLocalCard, type BillingStack, changePlan, createUser, makeClock, startBillingStack } from "./harness.ts";

jest.setTimeout(60_000);

let s: BillingStack;
beforeAll(async () => {
  s = await startBillingStack({ clock: makeClock("2027-01-31T10:00:00.000Z") });
});
afterAll(async () => {
  await s?.close();
});

const sweep = (): Promise<SweepResult> =>
  processMaintenance(
    { db: s.t.db, billing: s.billing, logger: createLogger("sweep", "silent"), now: s.clock.now },
    { id: "1", name: "daily-maintenance", data: { kind: "daily-maintenance" }, attemptsMade: 0, opts: {} },
  );
async function usage(token: string) {
  const r = await api(s.url, "GET", "/api/user-usage", { token });
  expect(r.status).toBe(200);
  return usageRecordSchema.strict().parse(r.body);
}
const card = (token: string, number: string) => addLocalCard(s, token, number);
const change = (token: string, body: Record<string, unknown>) => changePlan(s, token, body);
const row = (uid: string) => s.t.db.user.findUniqueOrThrow({ where: { id: uid } });
const paymentsOf = (uid: string) => s.t.db.payment.findMany({ where: { userId: uid }, orderBy: { createdAt: "asc" } });

it("runs renewals, resets and a scheduled downgrade over a month", async () => {
  const alice = await createUser(s); // registered 2027-01-31 10:00, anchor day 31
  const bob = await createUser(s); // will pay with the 3-D Secure card, which cannot renew off-session
  const fresh = {
    totalMinutesUsed: 0,
    maxMinutes: 30,
    titlesAndHeadingsUsage: 0,
    maxTitlesAndHeadingsUsage: 3,
    summarizeUsage: 0,
    maxSummaryUsage: 3,
    resetDate: "2027-02-28T10:00:00.000Z",
    plan: "free",
    pendingPlan: null,
    maxUploadBytes: 20_971_520,
  };
  expect(await usage(alice.token)).toEqual(fresh);

  // 10 Feb: some use, then free → standard: 18 of 28 days unused, 1500 × 18/28 = 964.29 → $9.64.
  s.clock.set("2027-02-10T12:00:00.000Z");
  await chargeSecondsOnce(s.t.db, alice.uid, 600, "transcription:job-1", s.clock.now());
  await reserveCount(s.t.db, alice.uid, "summary", s.cfg.quotas, s.clock.now());
  await reserveCount(s.t.db, alice.uid, "summary", s.cfg.quotas, s.clock.now());
  await reserveCount(s.t.db, alice.uid, "titles", s.cfg.quotas, s.clock.now());
  let r = await change(alice.token, {
    paymentMethodId: await card(alice.token, "4242424242424242"),
    selectedPlan: "standard",
  });
  expect([r.status, r.body.charged]).toEqual([200, { amount: 9.64, currency: "USD" }]);
  expect(await usage(alice.token)).toEqual({
    totalMinutesUsed: 10,
    maxMinutes: 600,
    titlesAndHeadingsUsage: 1,
    maxTitlesAndHeadingsUsage: 100,
    summarizeUsage: 2,
    maxSummaryUsage: 100,
    resetDate: "2027-02-28T10:00:00.000Z",
    plan: "standard",
    pendingPlan: null,
    maxUploadBytes: 524_288_000,
  });
  const bobSecret = (
    await change(bob.token, { paymentMethodId: await card(bob.token, "4000002500003155"), selectedPlan: "standard" })
  ).body.clientSecret;
  await api(s.url, "POST", "/api/billing/local/confirm", { token: bob.token, body: { clientSecret: bobSecret } });
  expect((await usage(bob.token)).plan).toBe("standard");
  // carol starts a 3-D Secure upgrade and never finishes it.
  const carol = await createUser(s, { periodStart: "2027-01-31T10:00:00.000Z" });
  const carolStart = await change(carol.token, {
    paymentMethodId: await card(carol.token, "4000002500003155"),
    selectedPlan: "premium",
  });
  expect(carolStart.body.status).toBe("requires_action");

  // 20 Feb: standard → premium: 8 days unused, 1500 × 8/28 = 428.57 → $4.29.
  s.clock.set("2027-02-20T08:00:00.000Z");
  r = await change(alice.token, { paymentMethodId: null, selectedPlan: "premium" });
  expect(r.body.charged).toEqual({ amount: 4.29, currency: "USD" });

  // 25 Feb: premium → standard is scheduled for the reset date.
  s.clock.set("2027-02-25T09:00:00.000Z");
  r = await change(alice.token, { paymentMethodId: null, selectedPlan: "standard" });
  expect(r.body.status).toBe("scheduled");
  expect(await usage(alice.token)).toMatchObject({
    plan: "premium",
    maxMinutes: 1800,
    pendingPlan: { plan: "standard", date: "2027-02-28T10:00:00.000Z" },
  });

  // 28 Feb 09:59: not due yet.
  s.clock.set("2027-02-28T09:59:59.000Z");
  expect(await sweep()).toEqual({
    resets: { due: 0, periodsReset: 0, plansApplied: 0, skipped: 0 },
    renewals: { due: 0, renewed: 0, failed: 0, deferred: 0 },
    expired: 0,
  });

  // 28 Feb 10:30: reset, the downgrade applies, standard renews at $15; bob's renewal needs 3-D Secure → free.
  s.clock.set("2027-02-28T10:30:00.000Z");
  expect(await sweep()).toEqual({
    resets: { due: 3, periodsReset: 3, plansApplied: 1, skipped: 0 },
    renewals: { due: 2, renewed: 1, failed: 1, deferred: 0 },
    expired: 1, // carol's abandoned challenge
  });
  expect((await paymentsOf(carol.uid)).map((p) => [p.status, p.failureCode])).toEqual([["canceled", "expired"]]);
  expect((await usage(carol.token)).plan).toBe("free");
  const afterReset = {
    totalMinutesUsed: 0,
    maxMinutes: 600,
    titlesAndHeadingsUsage: 0,
    maxTitlesAndHeadingsUsage: 100,
    summarizeUsage: 0,
    maxSummaryUsage: 100,
    resetDate: "2027-03-31T10:00:00.000Z", // the day-31 anchor comes back after February
    plan: "standard",
    pendingPlan: null,
    maxUploadBytes: 524_288_000,
  };
  expect(await usage(alice.token)).toEqual(afterReset);
  expect(await usage(bob.token)).toEqual({ ...fresh, resetDate: "2027-03-31T10:00:00.000Z" });
  const bobPlan = await api(s.url, "GET", "/api/subscriptions/current", { token: bob.token });
  expect(bobPlan.body.lastRenewalFailure).toEqual({
    code: "authentication_required",
    reason: "The card requires authentication, which is not possible for an automatic renewal.",
    date: "2027-02-28T10:30:00.000Z",
  });

  // The same run again changes nothing.
  const [aliceRow, bobRow, alicePayments] = [await row(alice.uid), await row(bob.uid), await paymentsOf(alice.uid)];
  expect(await sweep()).toEqual({
    resets: { due: 0, periodsReset: 0, plansApplied: 0, skipped: 0 },
    renewals: { due: 0, renewed: 0, failed: 0, deferred: 0 },
    expired: 0,
  });
  expect([await row(alice.uid), await row(bob.uid), await paymentsOf(alice.uid)]).toEqual([
    aliceRow,
    bobRow,
    alicePayments,
  ]);
  expect(
    alicePayments.map((p) => [p.kind, p.plan, p.amount, p.status, p.idempotencyKey.replace(alice.uid, "U")]),
  ).toEqual([
    ["upgrade", "standard", 964, "succeeded", "upgrade:U:standard:2027-01-31T10:00:00.000Z:1"],
    ["upgrade", "premium", 429, "succeeded", "upgrade:U:premium:2027-01-31T10:00:00.000Z:1"],
    ["renewal", "standard", 1500, "succeeded", "renewal:U:2027-02-28T10:00:00.000Z"],
  ]);

  // 15 Mar: switch to free, scheduled for 31 Mar; auto-renewal is off.
  s.clock.set("2027-03-15T00:00:00.000Z");
  await chargeSecondsOnce(s.t.db, alice.uid, 90, "transcription:job-2", s.clock.now());
  r = await change(alice.token, { paymentMethodId: null, selectedPlan: "free" });
  expect(r.body.pendingPlan).toEqual({ plan: "free", date: "2027-03-31T10:00:00.000Z" });
  expect(await usage(alice.token)).toEqual({
    ...afterReset,
    totalMinutesUsed: 1.5,
    pendingPlan: { plan: "free", date: "2027-03-31T10:00:00.000Z" },
  });
  expect((await api(s.url, "GET", "/api/subscriptions/current", { token: alice.token })).body.autoRenew).toBe(false);

  // 31 Mar 11:00: free from now on, no charge; the next reset is 30 April.
  s.clock.set("2027-03-31T11:00:00.000Z");
  const end = await sweep();
  expect(end.renewals).toEqual({ due: 0, renewed: 0, failed: 0, deferred: 0 });
  expect(end.resets.plansApplied).toBe(1);
  expect(await usage(alice.token)).toEqual({ ...fresh, resetDate: "2027-04-30T10:00:00.000Z" });
  expect(await sweep()).toMatchObject({ resets: { due: 0 }, renewals: { due: 0 } });
  expect(await paymentsOf(alice.uid)).toHaveLength(3);
});
