import { z } from "zod";
import { EMAIL_MAX } from "./auth.ts";
import { planSchema } from "./plans.ts";

/**
 * The account page's answers (/api/auth/account…; services/gateway/src/account/routes.ts serves them,
 * the web app reads them).
 */

/** GET /api/auth/account: who is logged in. */
export const accountSchema = z.object({
  uid: z.string(),
  email: z.string(),
  emailVerified: z.boolean(),
  language: z.string(),
  plan: planSchema,
  pendingPlan: planSchema.nullable(),
  resetDate: z.string(),
  createdAt: z.string(),
});
export type Account = z.infer<typeof accountSchema>;

/** One row of the billing history. */
export const paymentRowSchema = z.object({
  id: z.string(),
  date: z.string(),
  /** upgrade | renewal. */
  kind: z.string(),
  fromPlan: planSchema,
  plan: planSchema,
  /** Major units (dollars; yen). */
  amount: z.number(),
  currency: z.string(),
  status: z.string(),
  card: z.string().nullable(),
  periodStart: z.string(),
  periodEnd: z.string(),
});
export type PaymentRow = z.infer<typeof paymentRowSchema>;

/** GET /api/auth/account/payments: newest first. */
export const paymentsResponseSchema = z.object({ payments: z.array(paymentRowSchema) });

/** POST /api/auth/account/email (202): the address the confirmation link went to. */
export const emailChangeResponseSchema = z.object({ pendingEmail: z.string() });

/** POST /api/auth/account/email/confirm: the account's new address. */
export const emailChangeConfirmResponseSchema = z.object({ email: z.string().max(EMAIL_MAX) });

/** GET /api/auth/account/export: everything stored about the account. */
export const accountExportSchema = z.record(z.string(), z.unknown());
