import { DEFAULT_QUOTAS } from "../src/plans.ts";
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
