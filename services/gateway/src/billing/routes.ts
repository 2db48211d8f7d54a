// Plans, plan changes, payments and the card provider's webhook: validated, documented and
// authenticated here, answered by the billing use cases (billing/usecases.ts), which ask the billing
// service (billing/repository.ts, docs/decisions/0006-billing.md).
import {
  changeSubscriptionBodySchema,
  changeSubscriptionResponseSchema,
  currentSubscriptionSchema,
  localCardBodySchema,
  localConfirmBodySchema,
  localConfirmResponseSchema,
  localPaymentMethodSchema,
  paymentMethodBodySchema,
  paymentMethodResponseSchema,
  planQuoteQuerySchema,
  planQuoteSchema,
  plansQuerySchema,
  plansResponseSchema,
  receiptParamsSchema,
} from "@kikitori/shared";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod, ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, bearerToken, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { ZodApp } from "../zod-app.ts";
import type { BillingAnswer, BillingCaller, BillingService } from "./usecases.ts";

export interface BillingRoutesOptions {
  signer: TokenSigner;
  billing: BillingService;
}

/** Per-IP limit on plan changes and card checks, per minute. */
const PER_IP_PER_MINUTE = 30;

/** The caller of a billing use case: the request's user (or none), its id and its log. */
const caller = (req: FastifyRequest, uid: string | null): BillingCaller => ({ uid, requestId: req.id, log: req.log });

/** Sends a billing answer to the user: a PDF receipt, or the billing service's JSON with its status. */
function send(reply: FastifyReply, answer: BillingAnswer): FastifyReply {
  if (answer.kind === "pdf") {
    return reply
      .header("content-type", "application/pdf")
      .header("content-disposition", answer.disposition)
      .header("cache-control", "private, no-store")
      .send(answer.bytes);
  }
  return reply.status(answer.status).send(answer.body);
}

interface BillingRouteContext {
  opts: BillingRoutesOptions;
  billing: BillingService;
  guard: ReturnType<typeof requireAuth>;
  limited: { rateLimit: { max: number; timeWindow: string } };
  tags: string[];
  security: { bearer: never[] }[];
}

export const billingRoutes: FastifyPluginAsyncZod<BillingRoutesOptions> = async (app, opts) => {
  const ctx: BillingRouteContext = {
    opts,
    billing: opts.billing,
    guard: requireAuth(opts.signer),
    limited: { rateLimit: { max: PER_IP_PER_MINUTE, timeWindow: "1 minute" } },
    tags: ["plans"],
    security: [{ bearer: [] }],
  };
  subscriptionRoutes(app, ctx);
  paymentRoutes(app, ctx);
  await webhookRoutes(app, ctx);
};

/** The plans, the user's subscription, a plan change and its quote. */
function subscriptionRoutes(app: ZodApp, { opts, billing, guard, limited, tags, security }: BillingRouteContext): void {
  app.get(
    "/subscriptions/plans",
    {
      schema: {
        tags,
        summary: "Plans and their monthly prices in the currency of the language (or of the paying subscription)",
        querystring: plansQuerySchema,
        response: { 200: plansResponseSchema, ...errorResponses(503) },
      },
    },
    async (req, reply) => {
      // Optional sign-in: a paying user sees the currency their subscription is charged in.
      let uid: string | null = null;
      const token = bearerToken(req);
      if (token)
        uid = await opts.signer.verify(token).then(
          (c) => c.sub,
          () => null,
        );
      return send(reply, await billing.plans(caller(req, uid), req.query.lang));
    },
  );

  app.get(
    "/subscriptions/current",
    {
      onRequest: guard,
      schema: {
        tags,
        security,
        summary: "The plan screen: plan, pending switch, next billing date, auto-renewal, last failed renewal, card",
        querystring: plansQuerySchema,
        response: { 200: currentSubscriptionSchema, ...errorResponses(401, 404, 503) },
      },
    },
    async (req, reply) => {
      return send(reply, await billing.current(caller(req, assertUid(req, undefined)), req.query.lang));
    },
  );

  app.post(
    "/subscriptions/create-or-update-subscription",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        security,
        summary:
          "Upgrade now (prorated charge; clientSecret when 3-D Secure is needed), or schedule a downgrade / switch to free for the reset date",
        body: changeSubscriptionBodySchema,
        response: { 200: changeSubscriptionResponseSchema, ...errorResponses(400, 401, 402, 403, 404, 409, 502, 503) },
      },
    },
    async (req, reply) => {
      const uid = assertUid(req, req.body.uid);
      const { uid: _ignored, ...body } = req.body;
      return send(reply, await billing.changePlan(caller(req, uid), body));
    },
  );

  app.get(
    "/subscriptions/quote",
    {
      onRequest: guard,
      schema: {
        tags,
        security,
        summary:
          "What choosing a plan would do before anything is charged: the amount due now, the monthly price, when it takes effect and the card that would be charged",
        querystring: planQuoteQuerySchema,
        response: { 200: planQuoteSchema, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (req, reply) => {
      return send(reply, await billing.quote(caller(req, assertUid(req, undefined)), req.query));
    },
  );
}

/** The card on file, receipts and the local card provider's card checks and 3-D Secure step. */
function paymentRoutes(app: ZodApp, { billing, guard, limited, tags, security }: BillingRouteContext): void {
  app.post(
    "/subscriptions/payment-method",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        security,
        summary: "Replace the card on file (used by the next upgrade and the renewals); nothing is charged",
        body: paymentMethodBodySchema,
        response: { 200: paymentMethodResponseSchema, ...errorResponses(400, 401, 402, 404, 502, 503) },
      },
    },
    async (req, reply) => send(reply, await billing.replaceCard(caller(req, assertUid(req, undefined)), req.body)),
  );

  app.get(
    "/billing/receipts/:paymentId",
    {
      onRequest: guard,
      schema: {
        tags,
        security,
        summary:
          "The PDF receipt of one of the user's paid payments: invoice number, seller and buyer, period, tax lines, card",
        params: receiptParamsSchema,
        response: errorResponses(400, 401, 404, 503),
      },
    },
    async (req, reply) =>
      send(reply, await billing.receipt(caller(req, assertUid(req, undefined)), req.params.paymentId)),
  );

  app.post(
    "/billing/local/payment-methods",
    {
      onRequest: guard,
      config: limited,
      schema: {
        tags,
        security,
        summary: "Local card provider only: checks a card (Luhn, expiry, CVC) and returns a payment-method id",
        body: localCardBodySchema,
        response: { 200: localPaymentMethodSchema, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (req, reply) => send(reply, await billing.checkLocalCard(caller(req, assertUid(req, undefined)), req.body)),
  );

  app.post(
    "/billing/local/confirm",
    {
      onRequest: guard,
      schema: {
        tags,
        security,
        summary: "Local card provider only: completes (or fails) the 3-D Secure step of a payment",
        body: localConfirmBodySchema,
        response: { 200: localConfirmResponseSchema, ...errorResponses(400, 401, 402, 404, 503) },
      },
    },
    async (req, reply) => send(reply, await billing.confirmLocal(caller(req, assertUid(req, undefined)), req.body)),
  );
}

/** The card provider's webhook, checked against its exact bytes: this scope keeps the raw body. */
async function webhookRoutes(app: ZodApp, { billing, tags }: BillingRouteContext): Promise<void> {
  await app.register(async (scope) => {
    const raw = scope.withTypeProvider<ZodTypeProvider>();
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
    raw.post(
      "/billing/webhook",
      {
        schema: {
          tags,
          summary: "The card provider's signed events (Stripe-Signature); each event is applied once",
          response: { 200: z.object({ received: z.literal(true), result: z.string() }), ...errorResponses(400, 503) },
        },
      },
      async (req, reply) =>
        send(
          reply,
          await billing.webhook(caller(req, null), {
            bytes: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
            contentType: String(req.headers["content-type"] ?? "application/json"),
            signature:
              typeof req.headers["stripe-signature"] === "string" ? req.headers["stripe-signature"] : undefined,
          }),
        ),
    );
  });
}
