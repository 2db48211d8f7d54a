// The card-provider port: everything billing needs from a card network, implemented by Stripe
// (providers/stripe.ts) and by the embedded local provider (providers/local.ts).

export interface CardDetails {
  id: string;
  brand: string;
  last4: string;
}

export interface ChargeRequest {
  /** Minor units (cents, whole yen). */
  amount: number;
  currency: string;
  customerId: string;
  paymentMethodId: string;
  /** Sent to the provider: the same key never charges twice. */
  idempotencyKey: string;
  /** True for renewals (the user is not there to pass 3-D Secure). */
  offSession: boolean;
  /** Our payment row id and other references, stored with the provider's payment. */
  metadata: Record<string, string>;
  description: string;
}

export type ChargeResult =
  | { status: "succeeded"; intentId: string }
  | { status: "requires_action"; intentId: string; clientSecret: string }
  | { status: "failed"; intentId: string | null; code: string; message: string; declineCode?: string };

/** A provider event, normalised: what the Stripe webhook and the local confirmation both deliver. */
export interface PaymentEvent {
  /** Unique per event; an id already processed is ignored. */
  id: string;
  type: "payment.succeeded" | "payment.failed" | "payment.canceled" | "other";
  /** The provider's own event type (for logs and the processed-events table). */
  providerType: string;
  intentId: string | null;
  /** Our payment row id from the intent's metadata, when present. */
  paymentId: string | null;
  failure?: { code: string; message: string };
}

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly kind: "card" | "invalid_request" | "unavailable",
    readonly declineCode?: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

export interface CardProvider {
  readonly name: "local" | "stripe";
  /** For Stripe.js / Elements in the web app (stripe only). */
  readonly publishableKey?: string;
  /** The provider's customer for this user (created once; the key makes retries safe). */
  ensureCustomer(user: { id: string; email: string }, existing: string | null): Promise<string>;
  /** Saves the card on the customer for later renewals and returns what the plan screen shows. */
  attachPaymentMethod(customerId: string, paymentMethodId: string): Promise<CardDetails>;
  charge(req: ChargeRequest): Promise<ChargeResult>;
  /** Current state of a payment (to reconcile a missed webhook); null when the provider cannot tell. */
  retrieve(intentId: string): Promise<ChargeResult | null>;
  cancel(intentId: string): Promise<void>;
  refund(intentId: string, idempotencyKey: string): Promise<void>;
  /** Verifies and parses a webhook; throws ProviderError("invalid_signature") on a bad signature. */
  parseWebhook(rawBody: Buffer, signature: string | undefined): PaymentEvent;
}
