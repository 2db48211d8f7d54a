/**
 * Readers for the billing answers, through the zod schemas in @kikitori/shared (billing.ts) that the
 * gateway and the billing service answer with. Each returns null (or nothing) for an answer that does
 * not match, so the screen shows its error instead of guessing. Pure.
 */
import {
  type ChangeSubscriptionResponse,
  type CurrentSubscription,
  changeSubscriptionResponseSchema,
  currentSubscriptionSchema,
  errorBodySchema,
  localConfirmResponseSchema,
  localPaymentMethodSchema,
  type PlanQuote,
  type PlansResponse,
  paymentMethodResponseSchema,
  planQuoteSchema,
  plansResponseSchema,
} from "@kikitori/shared";
import { bySchema } from "../api/client.ts";
import { sortPlans } from "./pricing.ts";

/** A plan with its monthly price and quotas. */
export type PlanOffer = PlansResponse["plans"][number];
export type PlansInfo = PlansResponse;

/** GET /api/subscriptions/plans, in the catalogue's order (duplicates dropped). Null without a usable plan. */
export function parsePlans(raw: unknown): PlansInfo | null {
  const r = plansResponseSchema.safeParse(raw);
  if (!r.success) return null;
  const plans = sortPlans(r.data.plans);
  return plans.length ? { plans, currency: r.data.currency } : null;
}

export type SubscriptionState = CurrentSubscription;

/** GET /api/subscriptions/current. */
export const parseCurrent = bySchema(currentSubscriptionSchema);

export interface ApiErrorBody {
  code: string;
  message?: string;
  link?: string;
}

/** The create-or-update answer as the plan-change flow (flow.ts) reads it. */
export interface SubscriptionResult {
  nextBillingDate?: string;
  clientSecret?: string;
  message?: string;
  /** upgraded | requires_action | scheduled | pending_cancelled (flow.ts also copes with others). */
  status?: ChangeSubscriptionResponse["status"] | (string & {});
  /** What was charged now, in major units. */
  charged?: { amount: number; currency: string };
  error?: ApiErrorBody;
}

/**
 * The shared schema with every field optional, plus an error body in a 2xx answer: flow.ts decides
 * from the fields that are there (a clientSecret, a status, a message), so a partial answer still
 * settles the way it says.
 */
const changeAnswerSchema = changeSubscriptionResponseSchema
  .partial()
  .extend({ error: errorBodySchema.shape.error.optional() });

/** POST /api/subscriptions/create-or-update-subscription; {} for an answer that does not match. */
export function parseSubscriptionResult(raw: unknown): SubscriptionResult {
  const r = changeAnswerSchema.safeParse(raw);
  if (!r.success) return {};
  const { error, nextBillingDate, clientSecret, message, status, charged } = r.data;
  return {
    ...(error ? { error: { code: error.code, message: error.message, link: error.link } } : {}),
    ...(nextBillingDate ? { nextBillingDate } : {}),
    ...(clientSecret ? { clientSecret } : {}),
    ...(message ? { message } : {}),
    ...(status ? { status } : {}),
    ...(charged ? { charged } : {}),
  };
}

/** POST /api/billing/local/confirm (a declined or failed confirmation is an error answer, not this). */
export const parseConfirmResult = bySchema(localConfirmResponseSchema);

/** POST /api/billing/local/payment-methods → `{id, brand, last4}`. */
export const parsePaymentMethod = bySchema(localPaymentMethodSchema);

/** GET /api/subscriptions/quote: what a plan change would charge, before anything is. */
export type { PlanQuote };
export const parseQuote = bySchema(planQuoteSchema);

/** POST /api/subscriptions/payment-method → the card now on file. */
export const parseCardReplaced = bySchema(paymentMethodResponseSchema);
