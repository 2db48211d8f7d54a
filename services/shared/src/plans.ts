import { z } from "zod";
import { AppError } from "./errors.ts";
import { MAX_UPLOAD_BYTES } from "./transcription.ts";

/** A plan's monthly allowance. */
export interface PlanQuota {
  maxMinutes: number;
  maxSummaries: number;
  maxTitleRuns: number;
}

/** One plan of a catalogue. */
export interface PlanEntry<N extends string = string> {
  /** Lower case: the database and API value, and the `<PLAN>` of the setting names (upper-cased). */
  name: N;
  /** Charged every month (needs a card). Exactly one plan, the first, is not: the plan every account starts on. */
  paid: boolean;
  /** Default quotas; every service reads the real ones from PLAN_<PLAN>_{MINUTES,SUMMARIES,TITLE_RUNS}. */
  quotas: PlanQuota;
  /** Default monthly price per currency in major units ("15", "1980"); PRICE_<CURRENCY>_<PLAN> overrides or adds. */
  prices: Readonly<Record<string, string>>;
  /**
   * Largest recording the plan may upload, in bytes (resumable uploads, POST /api/uploads); without it,
   * the single POST's limit (MAX_UPLOAD_BYTES, 20 MiB).
   */
  maxUploadBytes?: number;
}

/**
 * The plans and everything derived from their order and kind. Plan names are taken as plain strings
 * where they are only read, so a catalogue of any names (a test's) is accepted wherever the default
 * one is.
 */
export interface PlanCatalogue<N extends string = string> {
  readonly entries: readonly PlanEntry<N>[];
  /** Every plan, cheapest first: moving to a later plan is an upgrade, to an earlier one a downgrade. */
  readonly names: readonly N[];
  readonly paidNames: readonly N[];
  /** The one unpaid plan: new accounts, switches to free and failed renewals end up on it. */
  readonly freePlan: N;
  readonly defaultQuotas: Readonly<Record<N, PlanQuota>>;
  has(value: unknown): value is N;
  /** Position in the order (0 for the free plan); throws for a name the catalogue does not have. */
  rank(plan: string): number;
  isPaid(plan: string): boolean;
  entry(plan: string): PlanEntry<N>;
  /** The plan's upload limit in bytes (its `maxUploadBytes`, else MAX_UPLOAD_BYTES). */
  maxUploadBytes(plan: string): number;
  /** The largest upload limit of any plan (what a request without a user is told it may send). */
  readonly largestUploadBytes: number;
}

const PLAN_NAME = /^[a-z][a-z0-9_]*$/;

/** Builds a catalogue from its entries in order, cheapest first; throws when they do not make one. */
export function definePlans<const N extends string>(entries: readonly PlanEntry<N>[]): PlanCatalogue<N> {
  if (entries.length === 0 || entries[0].paid) throw new Error("the first plan must be the unpaid one");
  const names = entries.map((e) => e.name);
  for (const [i, e] of entries.entries()) {
    if (!PLAN_NAME.test(e.name)) throw new Error(`plan name "${e.name}" must match ${PLAN_NAME}`);
    if (names.indexOf(e.name) !== i) throw new Error(`plan "${e.name}" is listed twice`);
    if (i > 0 && !e.paid) throw new Error(`plan "${e.name}": only the first plan may be unpaid`);
    const max = e.maxUploadBytes;
    if (max !== undefined && (!Number.isSafeInteger(max) || max < MAX_UPLOAD_BYTES)) {
      throw new Error(`plan "${e.name}": maxUploadBytes must be a whole number of bytes, at least ${MAX_UPLOAD_BYTES}`);
    }
  }
  const uploadLimit = (e: PlanEntry<N>) => e.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  const byName = new Map(entries.map((e, i) => [e.name as string, { entry: e, rank: i }]));
  const find = (plan: string) => {
    const found = byName.get(plan);
    if (!found) throw new Error(`unknown plan "${plan}"`);
    return found;
  };
  return {
    entries,
    names,
    paidNames: entries.filter((e) => e.paid).map((e) => e.name),
    freePlan: entries[0].name,
    defaultQuotas: Object.fromEntries(entries.map((e) => [e.name, { ...e.quotas }])) as Record<N, PlanQuota>,
    has: (value): value is N => typeof value === "string" && byName.has(value),
    rank: (plan) => find(plan).rank,
    isPaid: (plan) => find(plan).entry.paid,
    entry: (plan) => find(plan).entry,
    maxUploadBytes: (plan) => uploadLimit(find(plan).entry),
    largestUploadBytes: Math.max(...entries.map(uploadLimit)),
  };
}

/** A plan's part of setting names: "standard" → "STANDARD" (PLAN_STANDARD_MINUTES, PRICE_USD_STANDARD). */
export function planSettingKey(plan: string): string {
  return plan.toUpperCase();
}

/**
 * The product's plans. A new plan is one entry here (and the value in prisma/schema.prisma's `Plan`
 * enum with its migration, and its texts under plan.names / plan.descriptions in the locales).
 */
export const PLAN_CATALOGUE = definePlans([
  {
    name: "free",
    paid: false,
    quotas: { maxMinutes: 30, maxSummaries: 3, maxTitleRuns: 3 },
    prices: {},
    maxUploadBytes: MAX_UPLOAD_BYTES,
  },
  {
    name: "standard",
    paid: true,
    quotas: { maxMinutes: 600, maxSummaries: 100, maxTitleRuns: 100 },
    prices: { USD: "15", JPY: "1980" },
    maxUploadBytes: 500 * 1024 * 1024,
  },
  {
    name: "premium",
    paid: true,
    quotas: { maxMinutes: 1800, maxSummaries: 500, maxTitleRuns: 500 },
    prices: { USD: "30", JPY: "3980" },
    maxUploadBytes: 2 * 1024 * 1024 * 1024,
  },
]);

export type PlanName = (typeof PLAN_CATALOGUE.names)[number];
export const PLANS: readonly PlanName[] = PLAN_CATALOGUE.names;
export const PAID_PLANS: readonly PlanName[] = PLAN_CATALOGUE.paidNames;
export const FREE_PLAN: PlanName = PLAN_CATALOGUE.freePlan;
export const planSchema = z.enum(PLANS);

/** Defaults; every service reads the real values from its config (PLAN_<PLAN>_<QUOTA>). */
export const DEFAULT_QUOTAS: Readonly<Record<PlanName, PlanQuota>> = PLAN_CATALOGUE.defaultQuotas;

/** The configured quotas of one plan; an error when there are none (never another plan's). */
export function planQuota(quotas: Readonly<Record<string, PlanQuota>>, plan: string): PlanQuota {
  const q = quotas[plan];
  if (!q) throw new AppError("INTERNAL", `No quotas are configured for the ${plan} plan`);
  return q;
}

/** The usage record (GET /api/user-usage; services/gateway/test/system.int.test.ts). */
export const usageRecordSchema = z.object({
  totalMinutesUsed: z.number(),
  maxMinutes: z.number(),
  titlesAndHeadingsUsage: z.number().int(),
  maxTitlesAndHeadingsUsage: z.number().int(),
  summarizeUsage: z.number().int(),
  maxSummaryUsage: z.number().int(),
  resetDate: z.string(),
  plan: planSchema,
  pendingPlan: z.object({ plan: planSchema, date: z.string() }).nullable(),
  /** Largest recording the plan may upload, in bytes (the plan catalogue's maxUploadBytes). */
  maxUploadBytes: z.number().int(),
});
export type UsageRecord = z.infer<typeof usageRecordSchema>;
