/**
 * Readers for the billing answers (api-contract "Plans and usage"). Lenient where the contract allows
 * defaults, strict where the screen cannot work without a field. Pure.
 */
import type { PlanName } from "@kikitori/shared";
import { isPlanName, type PlanPrice, sortPlans } from "./pricing.ts";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}

export const DEFAULT_CURRENCY = "USD";

/** A plan with its monthly quotas when the server sends them. */
export interface PlanOffer extends PlanPrice {
  maxMinutes?: number;
  maxSummaries?: number;
  maxTitleRuns?: number;
}

export interface PlansInfo {
  plans: PlanOffer[];
  currency: string;
}

function count(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** GET /api/subscriptions/plans. Null when no plan could be read; currency defaults to USD (spec). */
export function parsePlans(raw: unknown): PlansInfo | null {
  if (!isRecord(raw) || !Array.isArray(raw.plans)) return null;
  const plans: PlanOffer[] = [];
  for (const p of raw.plans) {
    if (!isRecord(p) || !isPlanName(p.name)) continue;
    const price = typeof p.price === "number" ? p.price : typeof p.price === "string" ? Number(p.price) : Number.NaN;
    const offer: PlanOffer = { name: p.name, price };
    const quotas = {
      maxMinutes: count(p.maxMinutes),
      maxSummaries: count(p.maxSummaries),
      maxTitleRuns: count(p.maxTitleRuns),
    };
    for (const [k, v] of Object.entries(quotas)) if (v !== undefined) offer[k as keyof typeof quotas] = v;
    plans.push(offer);
  }
  const sorted = sortPlans(plans);
  if (sorted.length === 0) return null;
  const c = str(raw.currency)?.trim().toUpperCase();
  return { plans: sorted, currency: c && /^[A-Z]{3}$/.test(c) ? c : DEFAULT_CURRENCY };
}

export type PaymentProviderName = "local" | "stripe";

export interface SubscriptionState {
  plan: PlanName;
  pendingPlan: { plan: PlanName; date: string } | null;
  nextBillingDate: string | null;
  autoRenew: boolean;
  /** code: the provider's failure code ("card_declined"); reason: its English sentence. */
  lastRenewalFailure: { reason: string; code: string; date: string } | null;
  paymentMethod: { brand: string; last4: string } | null;
  /** A payment still waiting for 3-D Secure (the page was left during the challenge). */
  pendingPayment: { clientSecret: string; plan: PlanName; amount: number | null } | null;
  currency: string | null;
  provider: PaymentProviderName;
  publishableKey: string | null;
}

/** GET /api/subscriptions/current. Null without a known plan. */
export function parseCurrent(raw: unknown): SubscriptionState | null {
  if (!isRecord(raw) || !isPlanName(raw.plan)) return null;
  const pending =
    isRecord(raw.pendingPlan) && isPlanName(raw.pendingPlan.plan) && str(raw.pendingPlan.date)
      ? { plan: raw.pendingPlan.plan, date: String(raw.pendingPlan.date) }
      : null;
  const failure =
    isRecord(raw.lastRenewalFailure) && (str(raw.lastRenewalFailure.reason) || str(raw.lastRenewalFailure.date))
      ? {
          reason: str(raw.lastRenewalFailure.reason) ?? "",
          code: str(raw.lastRenewalFailure.code) ?? "",
          date: str(raw.lastRenewalFailure.date) ?? "",
        }
      : null;
  const pp = raw.pendingPayment;
  const pendingPayment =
    isRecord(pp) && str(pp.clientSecret) && isPlanName(pp.plan)
      ? { clientSecret: String(pp.clientSecret), plan: pp.plan, amount: count(pp.amount) ?? null }
      : null;
  const currency = str(raw.currency)?.toUpperCase();
  const pm =
    isRecord(raw.paymentMethod) && str(raw.paymentMethod.last4)
      ? { brand: str(raw.paymentMethod.brand) ?? "", last4: String(raw.paymentMethod.last4) }
      : null;
  return {
    plan: raw.plan,
    pendingPlan: pending,
    nextBillingDate: str(raw.nextBillingDate) ?? null,
    autoRenew: raw.autoRenew === true,
    lastRenewalFailure: failure,
    paymentMethod: pm,
    pendingPayment,
    currency: currency && /^[A-Z]{3}$/.test(currency) ? currency : null,
    provider: raw.provider === "stripe" ? "stripe" : "local",
    publishableKey: str(raw.publishableKey) ?? null,
  };
}

export interface ApiErrorBody {
  code: string;
  message?: string;
  link?: string;
}

function readErrorBody(v: unknown): ApiErrorBody | undefined {
  if (!isRecord(v)) return undefined;
  const code = str(v.code);
  const message = str(v.message);
  if (!code && !message) return undefined;
  return { code: code ?? "", message, link: str(v.link) };
}

export interface SubscriptionResult {
  nextBillingDate?: string;
  clientSecret?: string;
  message?: string;
  /** upgraded | requires_action | scheduled | pending_cancelled (or a payment-intent status). */
  status?: string;
  /** What was charged now, in major units. */
  charged?: { amount: number; currency: string };
  error?: ApiErrorBody;
}

/** POST /api/subscriptions/create-or-update-subscription (an error body in a 2xx answer is honoured too). */
export function parseSubscriptionResult(raw: unknown): SubscriptionResult {
  if (!isRecord(raw)) return {};
  const out: SubscriptionResult = {};
  const error = readErrorBody(raw.error);
  if (error) out.error = error;
  const nbd = str(raw.nextBillingDate);
  if (nbd) out.nextBillingDate = nbd;
  const secret = str(raw.clientSecret);
  if (secret) out.clientSecret = secret;
  const message = str(raw.message);
  if (message) out.message = message;
  const status = str(raw.status) ?? (isRecord(raw.paymentIntent) ? str(raw.paymentIntent.status) : undefined);
  if (status) out.status = status;
  if (isRecord(raw.charged) && count(raw.charged.amount) !== undefined && str(raw.charged.currency)) {
    out.charged = { amount: Number(raw.charged.amount), currency: String(raw.charged.currency) };
  }
  return out;
}

/** POST /api/billing/local/confirm: `{status}` or `{paymentIntent:{status}}`. */
export function parseConfirmResult(raw: unknown): { status: string; error?: ApiErrorBody } | null {
  if (!isRecord(raw)) return null;
  const error = readErrorBody(raw.error);
  const status = str(raw.status) ?? (isRecord(raw.paymentIntent) ? str(raw.paymentIntent.status) : undefined);
  if (!status && !error) return null;
  return { status: status ?? "", ...(error ? { error } : {}) };
}

/** POST /api/billing/local/payment-methods → `{id, brand, last4}`. */
export function parsePaymentMethod(raw: unknown): { id: string; brand: string; last4: string } | null {
  if (!isRecord(raw)) return null;
  const id = str(raw.id) ?? (isRecord(raw.paymentMethod) ? str(raw.paymentMethod.id) : undefined);
  if (!id) return null;
  return { id, brand: str(raw.brand) ?? "", last4: str(raw.last4) ?? "" };
}
