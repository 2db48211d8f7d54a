// The Stripe card provider: customers, saved cards, PaymentIntents with idempotency keys, signed
// webhooks. Payment methods come from Stripe Elements in the web app (pm_…).
import Stripe from "stripe";
import type { CardDetails, CardProvider, ChargeRequest, ChargeResult, PaymentEvent } from "./port.ts";
import { ProviderError } from "./port.ts";

export interface StripeProviderConfig {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** Tests point the SDK at a local stand-in. */
  host?: string;
  port?: number;
  protocol?: "http" | "https";
  toleranceSeconds: number;
  /** SDK network retries (same idempotency key); default 2. */
  maxNetworkRetries?: number;
}

interface StripeLikeError {
  type?: string;
  code?: string;
  decline_code?: string;
  message?: string;
  payment_intent?: { id?: string };
  raw?: { payment_intent?: { id?: string } };
}

export class StripeCardProvider implements CardProvider {
  readonly name = "stripe" as const;
  readonly publishableKey: string;
  private readonly stripe: Stripe;

  constructor(private readonly cfg: StripeProviderConfig) {
    this.publishableKey = cfg.publishableKey;
    this.stripe = new Stripe(cfg.secretKey, {
      maxNetworkRetries: cfg.maxNetworkRetries ?? 2,
      timeout: 20_000,
      telemetry: false,
      appInfo: { name: "kikitori-billing" },
      ...(cfg.host ? { host: cfg.host } : {}),
      ...(cfg.port ? { port: cfg.port } : {}),
      ...(cfg.protocol ? { protocol: cfg.protocol } : {}),
    });
  }

  async ensureCustomer(user: { id: string; email: string }, existing: string | null): Promise<string> {
    if (existing) return existing;
    try {
      const customer = await this.stripe.customers.create(
        { email: user.email, metadata: { uid: user.id } },
        { idempotencyKey: `customer:${user.id}` },
      );
      return customer.id;
    } catch (err) {
      throw toProviderError(err);
    }
  }

  async attachPaymentMethod(customerId: string, paymentMethodId: string): Promise<CardDetails> {
    try {
      let pm = await this.stripe.paymentMethods.retrieve(paymentMethodId);
      const owner = typeof pm.customer === "string" ? pm.customer : pm.customer?.id;
      if (owner !== customerId) pm = await this.stripe.paymentMethods.attach(paymentMethodId, { customer: customerId });
      return { id: pm.id, brand: pm.card?.brand ?? pm.type, last4: pm.card?.last4 ?? "" };
    } catch (err) {
      throw toProviderError(err);
    }
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: req.amount,
          currency: req.currency.toLowerCase(),
          customer: req.customerId,
          payment_method: req.paymentMethodId,
          // Cards only in practice (the web app collects a card); no redirect-based methods.
          automatic_payment_methods: { enabled: true, allow_redirects: "never" },
          confirm: true,
          ...(req.offSession ? { off_session: true } : { setup_future_usage: "off_session" as const }),
          metadata: req.metadata,
          description: req.description,
        },
        { idempotencyKey: req.idempotencyKey },
      );
      return fromIntent(intent);
    } catch (err) {
      const e = err as StripeLikeError;
      if (e?.type === "StripeCardError") {
        return {
          status: "failed",
          intentId: e.payment_intent?.id ?? e.raw?.payment_intent?.id ?? null,
          code: e.code ?? "card_declined",
          message: e.message ?? "The card was declined.",
          ...(e.decline_code ? { declineCode: e.decline_code } : {}),
        };
      }
      throw toProviderError(err);
    }
  }

  async retrieve(intentId: string): Promise<ChargeResult | null> {
    try {
      return fromIntent(await this.stripe.paymentIntents.retrieve(intentId));
    } catch (err) {
      throw toProviderError(err);
    }
  }

  async cancel(intentId: string): Promise<void> {
    try {
      await this.stripe.paymentIntents.cancel(intentId);
    } catch (err) {
      const e = err as StripeLikeError;
      // Already canceled or finished: nothing to cancel.
      if (e?.type === "StripeInvalidRequestError") return;
      throw toProviderError(err);
    }
  }

  async refund(intentId: string, idempotencyKey: string): Promise<void> {
    try {
      await this.stripe.refunds.create({ payment_intent: intentId }, { idempotencyKey });
    } catch (err) {
      throw toProviderError(err);
    }
  }

  parseWebhook(rawBody: Buffer, signature: string | undefined): PaymentEvent {
    let event: Stripe.Event;
    try {
      if (!signature) throw new Error("no Stripe-Signature header");
      event = this.stripe.webhooks.constructEvent(
        rawBody,
        signature,
        this.cfg.webhookSecret,
        this.cfg.toleranceSeconds,
      ) as Stripe.Event;
    } catch (err) {
      throw new ProviderError(
        `Webhook signature check failed: ${(err as Error).message}`,
        "invalid_signature",
        "invalid_request",
      );
    }
    const obj = (event.data?.object ?? {}) as { id?: string; object?: string; metadata?: Record<string, string> } & {
      last_payment_error?: { code?: string; decline_code?: string; message?: string } | null;
    };
    const isIntent = obj.object === "payment_intent";
    const base = {
      id: event.id,
      providerType: event.type,
      intentId: isIntent ? (obj.id ?? null) : null,
      paymentId: isIntent ? (obj.metadata?.paymentId ?? null) : null,
    };
    switch (event.type) {
      case "payment_intent.succeeded":
        return { ...base, type: "payment.succeeded" };
      case "payment_intent.payment_failed":
        return {
          ...base,
          type: "payment.failed",
          failure: {
            code: obj.last_payment_error?.decline_code ?? obj.last_payment_error?.code ?? "payment_failed",
            message: obj.last_payment_error?.message ?? "The payment failed.",
          },
        };
      case "payment_intent.canceled":
        return { ...base, type: "payment.canceled" };
      default:
        return { ...base, type: "other" };
    }
  }
}

function fromIntent(intent: Stripe.PaymentIntent): ChargeResult {
  switch (intent.status) {
    case "succeeded":
      return { status: "succeeded", intentId: intent.id };
    case "requires_action":
    case "requires_confirmation":
    case "processing":
      return { status: "requires_action", intentId: intent.id, clientSecret: intent.client_secret ?? "" };
    default: {
      const err = intent.last_payment_error;
      return {
        status: "failed",
        intentId: intent.id,
        code: err?.code ?? (intent.status === "canceled" ? "canceled" : "payment_failed"),
        message: err?.message ?? `The payment ended as ${intent.status}.`,
        ...(err?.decline_code ? { declineCode: err.decline_code } : {}),
      };
    }
  }
}

function toProviderError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = err as StripeLikeError;
  const message = e?.message ?? String(err);
  switch (e?.type) {
    case "StripeCardError":
      return new ProviderError(message, e.code ?? "card_declined", "card", e.decline_code);
    case "StripeInvalidRequestError":
      return new ProviderError(message, e.code ?? "invalid_request", "invalid_request");
    default:
      return new ProviderError(message, e?.code ?? e?.type ?? "provider_error", "unavailable");
  }
}
