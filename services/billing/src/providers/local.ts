// The embedded card provider (PAYMENT_PROVIDER=local, the default): no card network, but the
// outcomes of Stripe's test cards, so every branch of the plan screen works on a fresh machine.
//   4242 4242 4242 4242  succeeds
//   4000 0000 0000 0002  declined (card_declined); 9995 insufficient funds, 0069 expired, 0127 bad CVC
//   4000 0025 0000 3155  requires authentication on the user's own payments (3-D Secure: the web app
//                        confirms with POST /api/billing/local/confirm); off-session renewals fail
//   4000 0027 6000 3184  always requires authentication (renewals fail too)
// Any other valid number succeeds. Payment-method ids carry brand and last 4 digits:
// pm_local_<brand>_<last4>_<nonce>; nothing about the card is stored.
import { createHash, randomBytes } from "node:crypto";
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

/** Checks a card like a card form would (Luhn, expiry, CVC) and mints a local payment-method id. */
export function createLocalPaymentMethod(
  card: { number: string; expMonth: number; expYear: number; cvc: string },
  now: Date,
): CardDetails {
  const digits = card.number.replace(/[\s-]/g, "");
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) {
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
  const last4 = digits.slice(-4);
  return { id: `pm_local_${brand}_${last4}_${randomBytes(8).toString("hex")}`, brand, last4 };
}

const PM_ID = /^pm_local_([a-z]+)_(\d{4})_[0-9a-f]{16}$/;

export function parseLocalPaymentMethod(id: string): CardDetails | null {
  const m = PM_ID.exec(id);
  return m ? { id, brand: m[1], last4: m[2] } : null;
}

export class LocalCardProvider implements CardProvider {
  readonly name = "local" as const;

  async ensureCustomer(user: { id: string }, existing: string | null): Promise<string> {
    return existing ?? `cus_local_${user.id}`;
  }

  async attachPaymentMethod(_customerId: string, paymentMethodId: string): Promise<CardDetails> {
    const card = parseLocalPaymentMethod(paymentMethodId);
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
    const card = parseLocalPaymentMethod(req.paymentMethodId);
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
