import { z } from "zod";
import { planSchema } from "./plans.ts";

/**
 * The plan and payment calls (docs/decisions/0006-billing.md; the gateway's OpenAPI document at /api/docs).
 * The gateway validates and documents them; the billing service answers them.
 */

/** ISO 4217 code, upper case. */
export const currencySchema = z.string().regex(/^[A-Z]{3}$/);

/** GET /api/subscriptions/plans?lang= */
export const plansQuerySchema = z.object({ lang: z.string().max(16).optional() });
export const planOfferSchema = z.object({
  name: planSchema,
  /** Monthly price in the currency's major unit (15 = $15.00; 1980 = ¥1,980). */
  price: z.number(),
  maxMinutes: z.number().int(),
  maxSummaries: z.number().int(),
  maxTitleRuns: z.number().int(),
});
export const plansResponseSchema = z.object({
  plans: z.array(planOfferSchema),
  currency: currencySchema,
});
export type PlansResponse = z.infer<typeof plansResponseSchema>;

/** POST /api/subscriptions/create-or-update-subscription */
export const changeSubscriptionBodySchema = z.object({
  /** A card from the provider (Stripe `pm_…`, local `pm_local_…`); null keeps the stored card or for free. */
  paymentMethodId: z.string().min(1).max(255).nullable().optional(),
  selectedPlan: planSchema,
  /** The interface language; picks the currency for a first paid plan (as in the plans call). */
  lang: z.string().max(16).optional(),
  /** Accepted for compatibility; must equal the token's uid. */
  uid: z.string().max(64).optional(),
  /**
   * The amount (major units) the user confirmed from GET /api/subscriptions/quote. When given and the
   * charge would now differ, nothing is charged: 409 PRICE_CHANGED. The web app always sends it.
   */
  confirmedAmount: z.number().min(0).max(1_000_000).optional(),
});
export type ChangeSubscriptionBody = z.infer<typeof changeSubscriptionBodySchema>;

/** GET /api/subscriptions/quote?plan=…&lang=…: what a plan change would do, before anything is charged. */
export const planQuoteQuerySchema = z.object({ plan: planSchema, lang: z.string().max(16).optional() });
export const planQuoteSchema = z.object({
  /** upgrade: charged now; downgrade / free: switches on effectiveDate; same: nothing to change. */
  kind: z.enum(["upgrade", "downgrade", "free", "same"]),
  fromPlan: planSchema,
  plan: planSchema,
  currency: currencySchema,
  /** Charged now (major units): the prorated difference for the rest of the period; 0 when nothing is. */
  amountNow: z.number(),
  /** The chosen plan's monthly price from the next billing date (major units). */
  monthlyPrice: z.number(),
  /** When the change takes effect (now for an upgrade, the reset date otherwise), ISO 8601. */
  effectiveDate: z.string(),
  /** Next billing and quota reset date (ISO 8601): the end of the prorated period. */
  nextBillingDate: z.string(),
  /** The card on file that would be charged (null: none; a new card must be given). */
  card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
});
export type PlanQuote = z.infer<typeof planQuoteSchema>;

/** POST /api/subscriptions/payment-method: replace the card on file (renewals and upgrades use it). */
export const paymentMethodBodySchema = z.object({ paymentMethodId: z.string().min(1).max(255) });
export const paymentMethodResponseSchema = z.object({
  paymentMethod: z.object({ brand: z.string(), last4: z.string() }),
});

/** GET /api/billing/receipts/{paymentId}: a paid payment's receipt (PDF). */
export const receiptParamsSchema = z.object({ paymentId: z.string().uuid() });

export const pendingPlanSchema = z.object({ plan: planSchema, date: z.string() }).nullable();

export const changeSubscriptionResponseSchema = z.object({
  /** Next billing and quota reset date (ISO 8601). */
  nextBillingDate: z.string(),
  /** Present when the card needs 3-D Secure: confirm it (Stripe.js, or POST /api/billing/local/confirm). */
  clientSecret: z.string().optional(),
  /** A human-readable summary of what happened; shown as success when there is no clientSecret. */
  message: z.string().optional(),
  /** upgraded: applied now; requires_action: waiting for 3-D Secure; scheduled: switch at the reset
   * date; pending_cancelled: the scheduled switch was withdrawn. */
  status: z.enum(["upgraded", "requires_action", "scheduled", "pending_cancelled"]),
  plan: planSchema,
  pendingPlan: pendingPlanSchema,
  /** What was (or is being) charged now, in major units; null when nothing is charged. */
  charged: z.object({ amount: z.number(), currency: currencySchema }).nullable(),
});
export type ChangeSubscriptionResponse = z.infer<typeof changeSubscriptionResponseSchema>;

/** GET /api/subscriptions/current: everything the plan screen shows besides the usage record. */
export const currentSubscriptionSchema = z.object({
  plan: planSchema,
  pendingPlan: pendingPlanSchema,
  nextBillingDate: z.string(),
  /** True while a paid plan renews on nextBillingDate (false on free or with a switch to free pending). */
  autoRenew: z.boolean(),
  currency: currencySchema,
  lastRenewalFailure: z.object({ reason: z.string(), code: z.string(), date: z.string() }).nullable(),
  paymentMethod: z.object({ brand: z.string(), last4: z.string() }).nullable(),
  /** A payment still waiting for 3-D Secure (e.g. the page was closed during the challenge). */
  pendingPayment: z.object({ clientSecret: z.string(), plan: planSchema, amount: z.number() }).nullable(),
  provider: z.enum(["local", "stripe"]),
  /** Stripe's publishable key for Stripe.js / Elements (provider stripe only). */
  publishableKey: z.string().optional(),
});
export type CurrentSubscription = z.infer<typeof currentSubscriptionSchema>;

/** POST /api/billing/local/payment-methods (PAYMENT_PROVIDER=local only): the local card form. */
export const localCardBodySchema = z.object({
  number: z.string().max(32),
  expMonth: z.coerce.number().int(),
  expYear: z.coerce.number().int(),
  cvc: z.string().max(8),
});
export const localPaymentMethodSchema = z.object({ id: z.string(), brand: z.string(), last4: z.string() });

/** POST /api/billing/local/confirm: the local stand-in for the 3-D Secure challenge. */
export const localConfirmBodySchema = z.object({
  clientSecret: z.string().min(1).max(255),
  /** "fail" simulates a failed challenge; default "complete". */
  action: z.enum(["complete", "fail"]).optional(),
});
export const localConfirmResponseSchema = z.object({
  status: z.literal("succeeded"),
  plan: planSchema,
  nextBillingDate: z.string(),
});

/** The Luhn checksum every card number carries (used by the card form and the local provider). */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
