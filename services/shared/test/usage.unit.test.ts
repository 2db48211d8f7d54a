import { DEFAULT_QUOTAS, definePlans } from "../src/plans.ts";
import { toUsageRecord, type UsageRow } from "../src/server/usage.ts";

const row = (over: Partial<UsageRow> = {}): UsageRow => ({
  plan: "free",
  pendingPlan: null,
  pendingPlanAt: null,
  periodStart: new Date("2026-01-31T10:00:00Z"),
  resetDate: new Date("2026-02-28T10:00:00Z"),
  anchorDay: 31,
  secondsUsed: 90,
  summariesUsed: 2,
  titleRunsUsed: 1,
  ...over,
});

describe("toUsageRecord", () => {
  it("gives each plan's upload limit from the plan catalogue", () => {
    const at = new Date("2026-02-10T00:00:00Z");
    expect(toUsageRecord(row(), DEFAULT_QUOTAS, at).maxUploadBytes).toBe(20 * 1024 * 1024);
    expect(toUsageRecord(row({ plan: "standard" }), DEFAULT_QUOTAS, at).maxUploadBytes).toBe(500 * 1024 * 1024);
    expect(toUsageRecord(row({ plan: "premium" }), DEFAULT_QUOTAS, at).maxUploadBytes).toBe(2 * 1024 * 1024 * 1024);
  });

  it("refuses a catalogue whose upload limit is under the single POST's", () => {
    const q = { maxMinutes: 1, maxSummaries: 1, maxTitleRuns: 1 };
    expect(() => definePlans([{ name: "free", paid: false, quotas: q, prices: {}, maxUploadBytes: 1000 }])).toThrow(
      /maxUploadBytes/,
    );
    const plans = definePlans([
      { name: "free", paid: false, quotas: q, prices: {} },
      { name: "pro", paid: true, quotas: q, prices: {}, maxUploadBytes: 100 * 1024 * 1024 },
    ]);
    expect([plans.maxUploadBytes("free"), plans.maxUploadBytes("pro"), plans.largestUploadBytes]).toEqual([
      20 * 1024 * 1024,
      100 * 1024 * 1024,
      100 * 1024 * 1024,
    ]);
  });

  it("reports the current period as stored", () => {
    expect(toUsageRecord(row(), DEFAULT_QUOTAS, new Date("2026-02-10T00:00:00Z"))).toEqual({
      totalMinutesUsed: 1.5,
      maxMinutes: 30,
      summarizeUsage: 2,
      maxSummaryUsage: 3,
      titlesAndHeadingsUsage: 1,
      maxTitlesAndHeadingsUsage: 3,
      resetDate: "2026-02-28T10:00:00.000Z",
      plan: "free",
      pendingPlan: null,
      maxUploadBytes: 20_971_520,
    });
  });

  it("shows a new, empty period once the reset date has passed (before the sweep writes it)", () => {
    const r = toUsageRecord(row(), DEFAULT_QUOTAS, new Date("2026-03-01T00:00:00Z"));
    expect(r).toMatchObject({ totalMinutesUsed: 0, summarizeUsage: 0, titlesAndHeadingsUsage: 0 });
    expect(r.resetDate).toBe("2026-03-31T10:00:00.000Z");
  });

  it("applies a due plan switch and uses that plan's quotas", () => {
    const due = row({ plan: "premium", pendingPlan: "free", pendingPlanAt: new Date("2026-02-28T10:00:00Z") });
    expect(toUsageRecord(due, DEFAULT_QUOTAS, new Date("2026-02-20T00:00:00Z"))).toMatchObject({
      plan: "premium",
      maxMinutes: DEFAULT_QUOTAS.premium.maxMinutes,
      pendingPlan: { plan: "free", date: "2026-02-28T10:00:00.000Z" },
    });
    expect(toUsageRecord(due, DEFAULT_QUOTAS, new Date("2026-02-28T10:00:00Z"))).toMatchObject({
      plan: "free",
      maxMinutes: 30,
      pendingPlan: null,
    });
  });
});
