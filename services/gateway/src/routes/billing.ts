// Plans, plan changes, payments and the card provider's webhook: validated and documented here,
// answered by the billing service (BILLING_URL). The gateway authenticates the user and forwards
// the uid in x-kikitori-uid with the shared x-internal-token (docs/decisions/0006-billing.md).
import {
  AppError,
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
import { INTERNAL_TOKEN_HEADER, INTERNAL_UID_HEADER } from "@kikitori/shared/server";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod, ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, bearerToken, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { ZodApp } from "../zod-app.ts";

export interface BillingRoutesOptions {
  signer: TokenSigner;
  billingUrl: string;
  internalToken: string;
  timeoutMs: number;
}

/** Per-IP limit on plan changes and card checks, per minute. */
const PER_IP_PER_MINUTE = 30;

const unavailable = () =>
  new AppError("SERVICE_UNAVAILABLE", "Billing is temporarily unavailable. Please try again shortly.");

const langQuery = (lang: string | undefined) => (lang ? `?lang=${encodeURIComponent(lang)}` : "");

interface ForwardTarget {
  uid: string | null;
  body?: unknown;
  raw?: Buffer;
  pdf?: boolean;
}

/** Sends the request on to the billing service with the internal token and, if known, the user's uid. */
async function callBilling(
  opts: BillingRoutesOptions,
  req: FastifyRequest,
  path: string,
  target: ForwardTarget,
): Promise<Response> {
  const headers: Record<string, string> = {
    [INTERNAL_TOKEN_HEADER]: opts.internalToken,
    "x-request-id": req.id,
  };
  if (target.uid) headers[INTERNAL_UID_HEADER] = target.uid;
  let body: string | ArrayBuffer | undefined;
  if (target.raw) {
    body = new Uint8Array(target.raw).buffer; // a copy of exactly these bytes
    headers["content-type"] = String(req.headers["content-type"] ?? "application/json");
    const sig = req.headers["stripe-signature"];
    if (typeof sig === "string") headers["stripe-signature"] = sig;
  } else if (target.body !== undefined) {
    body = JSON.stringify(target.body);
    headers["content-type"] = "application/json";
  }
  try {
    return await fetch(opts.billingUrl + path, {
      method: req.method,
      headers,
      body,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (err) {
    req.log.error({ err, path }, "billing service unreachable");
    throw unavailable();
  }
}

/** Passes the billing service's answer (a PDF receipt or JSON) back to the user. */
async function answerFromBilling(
  req: FastifyRequest,
  reply: FastifyReply,
  path: string,
  res: Response,
  pdf = false,
): Promise<FastifyReply> {
  if (pdf && res.ok && res.headers.get("content-type")?.startsWith("application/pdf")) {
    const bytes = Buffer.from(await res.arrayBuffer());
    return reply
      .header("content-type", "application/pdf")
      .header("content-disposition", res.headers.get("content-disposition") ?? "attachment")
      .header("cache-control", "private, no-store")
      .send(bytes);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    req.log.error({ status: res.status, path }, "billing answered without JSON");
    throw unavailable();
  }
  if (res.status === 401) {
    // Only the internal token can fail there (the user was authenticated here): a deployment fault,
    // not the user's session.
    req.log.error({ path }, "billing refused the internal token: set the same INTERNAL_TOKEN (or JWT_SECRET) on both");
    throw unavailable();
  }
  if (res.status >= 500) req.log.warn({ status: res.status, path }, "billing error");
  return reply.status(res.status).send(json);
}

interface BillingRouteContext {
  opts: BillingRoutesOptions;
  guard: ReturnType<typeof requireAuth>;
  limited: { rateLimit: { max: number; timeWindow: string } };
  tags: string[];
  security: { bearer: never[] }[];
  forward: (req: FastifyRequest, reply: FastifyReply, path: string, target: ForwardTarget) => Promise<FastifyReply>;
}

export const billingRoutes: FastifyPluginAsyncZod<BillingRoutesOptions> = async (app, opts) => {
  const ctx: BillingRouteContext = {
    opts,
    guard: requireAuth(opts.signer),
    limited: { rateLimit: { max: PER_IP_PER_MINUTE, timeWindow: "1 minute" } },
    tags: ["plans"],
    security: [{ bearer: [] }],
    forward: async (req, reply, path, target) =>
      answerFromBilling(req, reply, path, await callBilling(opts, req, path, target), target.pdf),
  };
  subscriptionRoutes(app, ctx);
  paymentRoutes(app, ctx);
  await webhookRoutes(app, ctx);
};

/** The plans, the user's subscription, a plan change and its quote. */
function subscriptionRoutes(app: ZodApp, { opts, guard, limited, tags, security, forward }: BillingRouteContext): void {
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
      return forward(req, reply, `/api/subscriptions/plans${langQuery(req.query.lang)}`, { uid });
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
      return forward(req, reply, `/api/subscriptions/current${langQuery(req.query.lang)}`, {
        uid: assertUid(req, undefined),
      });
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
      return forward(req, reply, "/api/subscriptions/create-or-update-subscription", { uid, body });
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
      const q = new URLSearchParams({ plan: req.query.plan, ...(req.query.lang ? { lang: req.query.lang } : {}) });
      return forward(req, reply, `/api/subscriptions/quote?${q}`, { uid: assertUid(req, undefined) });
    },
  );
}

/** The card on file, receipts and the local card provider's card checks and 3-D Secure step. */
function paymentRoutes(app: ZodApp, { guard, limited, tags, security, forward }: BillingRouteContext): void {
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
    async (req, reply) =>
      forward(req, reply, "/api/subscriptions/payment-method", { uid: assertUid(req, undefined), body: req.body }),
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
      forward(req, reply, `/api/billing/receipts/${encodeURIComponent(req.params.paymentId)}`, {
        uid: assertUid(req, undefined),
        pdf: true,
      }),
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
    async (req, reply) =>
      forward(req, reply, "/api/billing/local/payment-methods", { uid: assertUid(req, undefined), body: req.body }),
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
    async (req, reply) =>
      forward(req, reply, "/api/billing/local/confirm", { uid: assertUid(req, undefined), body: req.body }),
  );
}

/** The card provider's webhook, checked against its exact bytes: this scope keeps the raw body. */
async function webhookRoutes(app: ZodApp, { tags, forward }: BillingRouteContext): Promise<void> {
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
        forward(req, reply, "/api/billing/webhook", {
          uid: null,
          raw: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        }),
    );
  });
}
