// A small local stand-in for the parts of the Stripe API billing uses: form-encoded bodies,
// Stripe-shaped JSON and errors, Idempotency-Key replays, test payment methods that succeed,
// decline or need 3-D Secure. Every request is recorded. Point the SDK at it with
// `new Stripe(key, { host: "127.0.0.1", port, protocol: "http" })` (STRIPE_API_HOST/PORT/PROTOCOL).
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  /** The form body, nested keys (`metadata[paymentId]`) unfolded. */
  form: Record<string, unknown>;
  idempotencyKey: string | null;
  authorization: string | null;
  /** True when the answer was a replay of an earlier request with the same idempotency key. */
  replayed: boolean;
}

interface Card {
  brand: string;
  last4: string;
  behaviour: "ok" | "decline" | "3ds" | "insufficient";
}

/** Stripe's test payment methods (https://docs.stripe.com/testing), by id. */
const TEST_METHODS: Record<string, Card> = {
  pm_card_visa: { brand: "visa", last4: "4242", behaviour: "ok" },
  pm_card_mastercard: { brand: "mastercard", last4: "4444", behaviour: "ok" },
  pm_card_visa_chargeDeclined: { brand: "visa", last4: "0002", behaviour: "decline" },
  pm_card_visa_chargeDeclinedInsufficientFunds: { brand: "visa", last4: "9995", behaviour: "insufficient" },
  pm_card_authenticationRequired: { brand: "visa", last4: "3155", behaviour: "3ds" },
};

export interface StripeStandin {
  host: string;
  port: number;
  requests: RecordedRequest[];
  intents: Map<string, Record<string, unknown>>;
  /** Delay before answering a PaymentIntent creation (to overlap concurrent requests). */
  setDelay: (ms: number) => void;
  /** What the web app's stripe.confirmCardPayment would do: the 3-D Secure challenge is passed. */
  completeAuthentication: (intentId: string) => Record<string, unknown>;
  /** Requests to one path, e.g. ("POST", "/v1/payment_intents"), replays excluded. */
  calls: (method: string, path: string) => RecordedRequest[];
  close: () => Promise<void>;
}

function unfold(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of params) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== "");
    let node = out as Record<string, unknown>;
    for (let i = 0; i < parts.length - 1; i++) {
      node[parts[i]] ??= {};
      node = node[parts[i]] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = value;
  }
  return out;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

export async function startStripeStandin(): Promise<StripeStandin> {
  const requests: RecordedRequest[] = [];
  const intents = new Map<string, Record<string, unknown>>();
  const attached = new Map<string, string>();
  const replays = new Map<string, { status: number; body: unknown }>();
  let delayMs = 0;

  const cardError = (
    code: string,
    declineCode: string | undefined,
    message: string,
    intent: Record<string, unknown>,
  ) => ({
    status: 402,
    body: {
      error: {
        type: "card_error",
        code,
        ...(declineCode ? { decline_code: declineCode } : {}),
        message,
        payment_intent: intent,
      },
    },
  });
  const notFound = (what: string) => ({
    status: 404,
    body: { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` } },
  });

  function createIntent(form: Record<string, unknown>): { status: number; body: unknown } {
    const pm = String(form.payment_method ?? "");
    const card = TEST_METHODS[pm];
    if (!card) return notFound(`PaymentMethod: '${pm}'`);
    const offSession = form.off_session === "true";
    const intentId = id("pi");
    const intent: Record<string, unknown> = {
      id: intentId,
      object: "payment_intent",
      amount: Number(form.amount),
      currency: form.currency,
      customer: form.customer,
      payment_method: pm,
      metadata: form.metadata ?? {},
      description: form.description ?? null,
      client_secret: `${intentId}_secret_${randomBytes(8).toString("hex")}`,
      status: "succeeded",
      last_payment_error: null,
      next_action: null,
    };
    intents.set(intentId, intent);
    if (card.behaviour === "decline" || card.behaviour === "insufficient") {
      const decline = card.behaviour === "decline" ? "generic_decline" : "insufficient_funds";
      const message = card.behaviour === "decline" ? "Your card was declined." : "Your card has insufficient funds.";
      intent.status = "requires_payment_method";
      intent.last_payment_error = { type: "card_error", code: "card_declined", decline_code: decline, message };
      return cardError("card_declined", decline, message, intent);
    }
    if (card.behaviour === "3ds") {
      if (offSession) {
        const message = "Your card was declined. This transaction requires authentication.";
        intent.status = "requires_payment_method";
        intent.last_payment_error = { type: "card_error", code: "authentication_required", message };
        return cardError("authentication_required", "authentication_required", message, intent);
      }
      intent.status = "requires_action";
      intent.next_action = { type: "use_stripe_sdk" };
    }
    return { status: 200, body: intent };
  }

  async function route(method: string, path: string, form: Record<string, unknown>) {
    if (method === "POST" && path === "/v1/customers") {
      return {
        status: 200,
        body: { id: id("cus"), object: "customer", email: form.email ?? null, metadata: form.metadata ?? {} },
      };
    }
    let m = /^\/v1\/payment_methods\/([\w]+)(\/attach)?$/.exec(path);
    if (m) {
      const card = TEST_METHODS[m[1]];
      if (!card) return notFound(`PaymentMethod: '${m[1]}'`);
      if (m[2] && method === "POST") attached.set(m[1], String(form.customer));
      return {
        status: 200,
        body: {
          id: m[1],
          object: "payment_method",
          type: "card",
          card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: 2034 },
          customer: attached.get(m[1]) ?? null,
        },
      };
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      return createIntent(form);
    }
    m = /^\/v1\/payment_intents\/([\w]+)(\/cancel)?$/.exec(path);
    if (m) {
      const intent = intents.get(m[1]);
      if (!intent) return notFound(`payment_intent: '${m[1]}'`);
      if (m[2]) {
        if (intent.status === "succeeded" || intent.status === "canceled") {
          return {
            status: 400,
            body: {
              error: {
                type: "invalid_request_error",
                code: "payment_intent_unexpected_state",
                message: "cannot cancel",
              },
            },
          };
        }
        intent.status = "canceled";
      }
      return { status: 200, body: intent };
    }
    if (method === "POST" && path === "/v1/refunds") {
      return {
        status: 200,
        body: { id: id("re"), object: "refund", payment_intent: form.payment_intent, status: "succeeded" },
      };
    }
    return notFound(`route: ${method} ${path}`);
  }

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", "http://x");
      const form = unfold(new URLSearchParams(req.method === "GET" ? url.search : raw));
      const key = (req.headers["idempotency-key"] as string | undefined) ?? null;
      const rec: RecordedRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        form,
        idempotencyKey: key,
        authorization: (req.headers.authorization as string | undefined) ?? null,
        replayed: false,
      };
      requests.push(rec);
      let answer: { status: number; body: unknown };
      const replayKey = key ? `${rec.method} ${rec.path} ${key}` : null;
      if (replayKey && replays.has(replayKey)) {
        rec.replayed = true;
        answer = replays.get(replayKey)!;
      } else {
        answer = await route(rec.method, rec.path, form);
        if (replayKey && rec.method === "POST") replays.set(replayKey, answer);
      }
      res.writeHead(answer.status, { "content-type": "application/json", "request-id": id("req") });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: "127.0.0.1",
    port,
    requests,
    intents,
    setDelay: (ms) => {
      delayMs = ms;
    },
    completeAuthentication: (intentId) => {
      const intent = intents.get(intentId);
      if (!intent) throw new Error(`no intent ${intentId}`);
      intent.status = "succeeded";
      intent.next_action = null;
      return intent;
    },
    calls: (method, path) => requests.filter((r) => r.method === method && r.path === path && !r.replayed),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A Stripe event envelope around a PaymentIntent, as Stripe posts it to the webhook. */
export function paymentIntentEvent(type: string, intent: Record<string, unknown>, eventId = id("evt")): string {
  return JSON.stringify({
    id: eventId,
    object: "event",
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object: intent },
  });
}
