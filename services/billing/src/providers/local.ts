// The embedded card provider (PAYMENT_PROVIDER=local, the default): no card network, but the
// outcomes of Stripe's test cards, so every branch of the plan screen works on a fresh machine.
//   4242 4242 4242 4242  succeeds
//   4000 0000 0000 0002  declined (card_declined); 9995 insufficient funds, 0069 expired, 0127 bad CVC
//   4000 0025 0000 3155  requires authentication on the user's own payments (3-D Secure: the web app
//                        confirms with POST /api/billing/local/confirm); off-session renewals fail
//   4000 0027 6000 3184  always requires authentication (renewals fail too)
// Any other valid number of a known card brand succeeds. Payment-method ids carry brand and last 4
// digits and a signature: pm_local_<brand>_<last4>_<nonce>_<mac>, the MAC an HMAC of the rest under
// the service's key, so the provider accepts only ids its own card form issued (an id a client makes
// up, such as pm_local_visa_4242_0000000000000000, is refused); nothing about the card is stored.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { AppError, luhnValid } from "@kikitori/shared";
import type { CardDetails, CardProvider, ChargeRequest, ChargeResult, PaymentEvent } from "./port.ts";
import { ProviderError } from "./port.ts";

type Outcome =
  | { kind: "ok" }
  | { kind: "decline"; code: string; declineCode: string; message: string }
  | { kind: "3ds"; offSession: "ok" | "fail" };

const BY_LAST4: Record<string, Outcome> = {
  "0002": {
    kind: "decline",
    code: "card_declined",
    declineCode: "generic_decline",
    message: "Your card was declined.",
  },
  "9995": {
    kind: "decline",
    code: "card_declined",
    declineCode: "insufficient_funds",
    message: "Your card has insufficient funds.",
  },
  "0069": { kind: "decline", code: "expired_card", declineCode: "expired_card", message: "Your card has expired." },
  "0127": {
    kind: "decline",
    code: "incorrect_cvc",
    declineCode: "incorrect_cvc",
    message: "Your card's security code is incorrect.",
  },
  "3155": { kind: "3ds", offSession: "fail" },
  "3184": { kind: "3ds", offSession: "fail" },
};

export function cardBrand(digits: string): string {
  if (/^4/.test(digits)) return "visa";
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return "mastercard";
  if (/^3[47]/.test(digits)) return "amex";
  if (/^35(2[89]|[3-8])/.test(digits)) return "jcb";
  if (/^(6011|65|64[4-9])/.test(digits)) return "discover";
  if (/^3(0[0-5]|[689])/.test(digits)) return "diners";
  return "unknown";
}

/** Checks a card like a card form would (Luhn, brand, expiry, CVC) and returns its brand and last 4. */
export function checkLocalCard(
  card: { number: string; expMonth: number; expYear: number; cvc: string },
  now: Date,
): { brand: string; last4: string } {
  const digits = card.number.replace(/[\s-]/g, "");
  // All zeros passes Luhn; no issuer number starts with 0 (nor is "unknown" a brand anyone issues).
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits) || cardBrand(digits) === "unknown") {
    throw new AppError("CARD_NUMBER_INVALID", "The card number is not valid.");
  }
  const year = card.expYear < 100 ? 2000 + card.expYear : card.expYear;
  const endOfMonth = Date.UTC(year, card.expMonth, 1); // first instant after the expiry month
  if (!(card.expMonth >= 1 && card.expMonth <= 12) || year > 2100 || endOfMonth <= now.getTime()) {
    throw new AppError("CARD_EXPIRY_INVALID", "The card's expiry date is not valid or has passed.");
  }
  const brand = cardBrand(digits);
  if (!(brand === "amex" ? /^\d{4}$/ : /^\d{3}$/).test(card.cvc)) {
    throw new AppError("CARD_CVC_INVALID", "The card's security code is not valid.");
  }
  return { brand, last4: digits.slice(-4) };
}

const PM_ID = /^(pm_local_([a-z]+)_(\d{4})_[0-9a-f]{16})_([0-9a-f]{32})$/;

export class LocalCardProvider implements CardProvider {
  readonly name = "local" as const;
  readonly #key: Buffer;

  /**
   * `secret`: the service's own secret (the internal token); without one, a key for this process only,
   * so ids issued before a restart are no longer accepted.
   */
  constructor(secret: string | undefined) {
    this.#key = createHmac("sha256", secret ?? randomBytes(32))
      .update("kikitori local payment methods")
      .digest();
  }

  #mac(body: string): string {
    return createHmac("sha256", this.#key).update(body).digest("hex").slice(0, 32);
  }

  /** The local card form: checks the card and issues a signed payment-method id for it. */
  issuePaymentMethod(card: { number: string; expMonth: number; expYear: number; cvc: string }, now: Date): CardDetails {
    const { brand, last4 } = checkLocalCard(card, now);
    const body = `pm_local_${brand}_${last4}_${randomBytes(8).toString("hex")}`;
    return { id: `${body}_${this.#mac(body)}`, brand, last4 };
  }

  /** The card of an id this provider issued; null for anything else (made up, altered, another key). */
  parsePaymentMethod(id: string): CardDetails | null {
    const m = PM_ID.exec(id);
    if (!m) return null;
    const expected = Buffer.from(this.#mac(m[1]));
    if (!timingSafeEqual(expected, Buffer.from(m[4]))) return null;
    return { id, brand: m[2], last4: m[3] };
  }

  async ensureCustomer(user: { id: string }, existing: string | null): Promise<string> {
    return existing ?? `cus_local_${user.id}`;
  }

  async attachPaymentMethod(_customerId: string, paymentMethodId: string): Promise<CardDetails> {
    const card = this.parsePaymentMethod(paymentMethodId);
    if (!card) {
      throw new ProviderError(
        "Unknown payment method: the local provider takes ids from POST /api/billing/local/payment-methods.",
        "payment_method_invalid",
        "invalid_request",
      );
    }
    return card;
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    const card = this.parsePaymentMethod(req.paymentMethodId);
    // The intent id follows from the idempotency key, as a provider's stored response would.
    const intentId = `pi_local_${createHash("sha256").update(req.idempotencyKey).digest("hex").slice(0, 24)}`;
    if (!card) {
      return { status: "failed", intentId, code: "payment_method_invalid", message: "Unknown payment method." };
    }
    const outcome = BY_LAST4[card.last4] ?? { kind: "ok" };
    if (outcome.kind === "decline") {
      return {
        status: "failed",
        intentId,
        code: outcome.code,
        message: outcome.message,
        declineCode: outcome.declineCode,
      };
    }
    if (outcome.kind === "3ds") {
      if (req.offSession) {
        return {
          status: "failed",
          intentId,
          code: "authentication_required",
          message: "The card requires authentication, which is not possible for an automatic renewal.",
        };
      }
      return {
        status: "requires_action",
        intentId,
        clientSecret: `${intentId}_secret_${randomBytes(12).toString("hex")}`,
      };
    }
    return { status: "succeeded", intentId };
  }

  /** The local provider keeps no state: the payments table is the record. */
  async retrieve(): Promise<ChargeResult | null> {
    return null;
  }

  async cancel(): Promise<void> {}

  async refund(): Promise<void> {}

  parseWebhook(): PaymentEvent {
    throw new ProviderError("The local provider has no webhooks.", "not_supported", "invalid_request");
  }
}
