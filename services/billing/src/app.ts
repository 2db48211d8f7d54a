// The billing service's HTTP server on OPS_PORT: /healthz, /readyz, /metrics and the internal API
// the gateway forwards to (same paths as the public ones; the caller's uid in x-kikitori-uid,
// checked with x-internal-token when a token is configured; docs/decisions/0006-billing.md).
import {
  AppError,
  changeSubscriptionBodySchema,
  changeSubscriptionResponseSchema,
  currentSubscriptionSchema,
  isUuid,
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
import {
  type Check,
  INTERNAL_TOKEN_HEADER,
  INTERNAL_UID_HEADER,
  instrumentHttp,
  internalTokenMatches,
  type Logger,
  readiness,
  toHttpAppError,
} from "@kikitori/shared/server";
import Fastify, { type FastifyBaseLogger, type FastifyRequest, LogController } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type client from "prom-client";
import { z } from "zod";
import type { BillingService } from "./service.ts";

export interface BillingAppDeps {
  billing: BillingService;
  logger: Logger;
  /** Shared secret expected in x-internal-token; undefined trusts the network. */
  internalToken?: string;
  checks: Record<string, Check>;
  registry?: client.Registry;
  isShuttingDown?: () => boolean;
}

function uidOf(req: FastifyRequest, required: true): string;
function uidOf(req: FastifyRequest, required: false): string | null;
function uidOf(req: FastifyRequest, required: boolean): string | null {
  const h = req.headers[INTERNAL_UID_HEADER];
  if (typeof h === "string" && isUuid(h)) return h.toLowerCase();
  if (required) throw new AppError("UNAUTHENTICATED", "The caller's uid is missing (x-kikitori-uid)");
  return null;
}

export async function buildBillingApp(deps: BillingAppDeps) {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    requestIdHeader: "x-request-id",
    bodyLimit: 1024 * 1024,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "correlationId" }),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.setErrorHandler((err, req, reply) => {
    const e = toHttpAppError(err);
    if (e.status >= 500) req.log.error({ err }, "request failed");
    return reply.status(e.status).send(e.toBody());
  });
  app.setNotFoundHandler((req, reply) =>
    reply.status(404).send(new AppError("NOT_FOUND", `No route for ${req.method} ${req.url.split("?")[0]}`).toBody()),
  );

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const r = await readiness(deps.checks, deps.isShuttingDown);
    return reply.code(r.code).send(r.body);
  });
  if (deps.registry) {
    const registry = deps.registry;
    instrumentHttp(app, registry);
    app.get("/metrics", async (_req, reply) => {
      reply.header("content-type", registry.contentType);
      return registry.metrics();
    });
  }

  await app.register(async (scope) => {
    const api = scope.withTypeProvider<ZodTypeProvider>();
    api.addHook("onRequest", async (req) => {
      if (deps.internalToken && !internalTokenMatches(deps.internalToken, req.headers[INTERNAL_TOKEN_HEADER])) {
        throw new AppError("UNAUTHENTICATED", "Internal calls need x-internal-token");
      }
    });
    const { billing } = deps;

    api.get(
      "/api/subscriptions/plans",
      { schema: { querystring: plansQuerySchema, response: { 200: plansResponseSchema } } },
      async (req) => billing.plans(req.query.lang, uidOf(req, false)),
    );
    api.get(
      "/api/subscriptions/current",
      { schema: { querystring: plansQuerySchema, response: { 200: currentSubscriptionSchema } } },
      async (req) => billing.current(uidOf(req, true), req.query.lang),
    );
    api.post(
      "/api/subscriptions/create-or-update-subscription",
      { schema: { body: changeSubscriptionBodySchema, response: { 200: changeSubscriptionResponseSchema } } },
      async (req) => billing.change(uidOf(req, true), req.body),
    );
    api.get(
      "/api/subscriptions/quote",
      { schema: { querystring: planQuoteQuerySchema, response: { 200: planQuoteSchema } } },
      async (req) => billing.quote(uidOf(req, true), req.query.plan, req.query.lang),
    );
    api.post(
      "/api/subscriptions/payment-method",
      { schema: { body: paymentMethodBodySchema, response: { 200: paymentMethodResponseSchema } } },
      async (req) => billing.replaceCard(uidOf(req, true), req.body.paymentMethodId),
    );
    api.get("/api/billing/receipts/:paymentId", { schema: { params: receiptParamsSchema } }, async (req, reply) => {
      const { bytes, fileName } = await billing.receiptPdf(uidOf(req, true), req.params.paymentId);
      return reply
        .header("content-type", "application/pdf")
        .header("content-disposition", `attachment; filename="${fileName}"`)
        .header("cache-control", "private, no-store")
        .send(Buffer.from(bytes));
    });
    api.post(
      "/api/billing/local/payment-methods",
      { schema: { body: localCardBodySchema, response: { 200: localPaymentMethodSchema } } },
      async (req) => {
        uidOf(req, true);
        return billing.createLocalPaymentMethod(req.body);
      },
    );
    api.post(
      "/api/billing/local/confirm",
      { schema: { body: localConfirmBodySchema, response: { 200: localConfirmResponseSchema } } },
      async (req) => billing.localConfirm(uidOf(req, true), req.body),
    );

    // The provider's webhook needs the exact bytes for its signature.
    await api.register(async (raw) => {
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
      raw.post(
        "/api/billing/webhook",
        { schema: { response: { 200: z.object({ received: z.literal(true), result: z.string() }) } } },
        async (req) => {
          const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
          const sig = req.headers["stripe-signature"];
          const out = await billing.handleWebhook(body, typeof sig === "string" ? sig : undefined);
          return { received: true as const, result: out.result };
        },
      );
    });
  });

  return app;
}
