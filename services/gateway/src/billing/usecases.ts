// The plan and payment calls: the gateway authenticates the user (billing/routes.ts), these use cases
// ask the billing service (through a BillingRepository: billing/repository.ts over HTTP, in memory in
// the unit tests) and turn its answer into the user's: its JSON and status as they are, a PDF
// receipt, or 503 SERVICE_UNAVAILABLE when it cannot be reached, answers without JSON, or refuses the
// internal token (a deployment fault, not the user's session).
import {
  AppError,
  type ChangeSubscriptionBody,
  type localCardBodySchema,
  type localConfirmBodySchema,
  type paymentMethodBodySchema,
  type planQuoteQuerySchema,
} from "@kikitori/shared";
import type { Logger } from "@kikitori/shared/server";
import type { z } from "zod";

type LocalCardBody = z.infer<typeof localCardBodySchema>;
type LocalConfirmBody = z.infer<typeof localConfirmBodySchema>;
type PaymentMethodBody = z.infer<typeof paymentMethodBodySchema>;
type PlanQuoteQuery = z.infer<typeof planQuoteQuerySchema>;

/** One call to the billing service's internal API. */
export interface BillingCall {
  method: "GET" | "POST";
  path: string;
  /** The authenticated user, sent as x-kikitori-uid; null for anonymous calls and the webhook. */
  uid: string | null;
  requestId: string;
  body?: unknown;
  /** The webhook's exact bytes, content type and signature (checked by the billing service). */
  raw?: { bytes: Buffer; contentType: string; signature?: string };
}

/** The billing service's answer: its text, or its bytes when it is a PDF. */
export interface BillingResponse {
  status: number;
  contentType: string;
  text?: string;
  bytes?: Buffer;
  disposition: string | null;
}

export interface BillingRepository {
  /** Rejects when the service cannot be reached in time. */
  send(call: BillingCall): Promise<BillingResponse>;
}

/** What the route sends back: the billing service's JSON with its status, or a PDF receipt. */
export type BillingAnswer =
  | { kind: "json"; status: number; body: unknown }
  | { kind: "pdf"; bytes: Buffer; disposition: string };

/** Who asks and where the request's log lines go. */
export interface BillingCaller {
  uid: string | null;
  requestId: string;
  log: Pick<Logger, "error" | "warn">;
}

const unavailable = () =>
  new AppError("SERVICE_UNAVAILABLE", "Billing is temporarily unavailable. Please try again shortly.");

const withLang = (path: string, lang: string | undefined) => (lang ? `${path}?lang=${encodeURIComponent(lang)}` : path);

export class BillingService {
  constructor(private readonly repo: BillingRepository) {}

  /** The plans and their prices (in the paying subscription's currency when `caller.uid` is known). */
  plans(caller: BillingCaller, lang?: string): Promise<BillingAnswer> {
    return this.ask(caller, "GET", withLang("/api/subscriptions/plans", lang));
  }

  /** The plan screen's subscription. */
  current(caller: BillingCaller, lang?: string): Promise<BillingAnswer> {
    return this.ask(caller, "GET", withLang("/api/subscriptions/current", lang));
  }

  /** An upgrade now, or a downgrade scheduled for the reset date. */
  changePlan(caller: BillingCaller, body: Omit<ChangeSubscriptionBody, "uid">): Promise<BillingAnswer> {
    return this.ask(caller, "POST", "/api/subscriptions/create-or-update-subscription", { body });
  }

  /** What choosing a plan would do, before anything is charged. */
  quote(caller: BillingCaller, query: PlanQuoteQuery): Promise<BillingAnswer> {
    const q = new URLSearchParams({ plan: query.plan, ...(query.lang ? { lang: query.lang } : {}) });
    return this.ask(caller, "GET", `/api/subscriptions/quote?${q}`);
  }

  replaceCard(caller: BillingCaller, body: PaymentMethodBody): Promise<BillingAnswer> {
    return this.ask(caller, "POST", "/api/subscriptions/payment-method", { body });
  }

  /** The PDF receipt of one of the user's payments (or the billing service's JSON error). */
  receipt(caller: BillingCaller, paymentId: string): Promise<BillingAnswer> {
    return this.ask(caller, "GET", `/api/billing/receipts/${encodeURIComponent(paymentId)}`, { pdf: true });
  }

  checkLocalCard(caller: BillingCaller, body: LocalCardBody): Promise<BillingAnswer> {
    return this.ask(caller, "POST", "/api/billing/local/payment-methods", { body });
  }

  confirmLocal(caller: BillingCaller, body: LocalConfirmBody): Promise<BillingAnswer> {
    return this.ask(caller, "POST", "/api/billing/local/confirm", { body });
  }

  /** The card provider's signed event, passed on byte for byte. */
  webhook(caller: BillingCaller, raw: NonNullable<BillingCall["raw"]>): Promise<BillingAnswer> {
    return this.ask(caller, "POST", "/api/billing/webhook", { raw });
  }

  private async ask(
    caller: BillingCaller,
    method: BillingCall["method"],
    path: string,
    opts: { body?: unknown; raw?: BillingCall["raw"]; pdf?: boolean } = {},
  ): Promise<BillingAnswer> {
    let res: BillingResponse;
    try {
      res = await this.repo.send({ method, path, uid: caller.uid, requestId: caller.requestId, ...opts });
    } catch (err) {
      caller.log.error({ err, path }, "billing service unreachable");
      throw unavailable();
    }
    if (opts.pdf && res.status < 300 && res.bytes) {
      return { kind: "pdf", bytes: res.bytes, disposition: res.disposition ?? "attachment" };
    }
    let body: unknown;
    try {
      body = JSON.parse(res.text ?? "");
    } catch {
      caller.log.error({ status: res.status, path }, "billing answered without JSON");
      throw unavailable();
    }
    if (res.status === 401) {
      // Only the internal token can fail there (the user was authenticated here).
      caller.log.error(
        { path },
        "billing refused the internal token: set the same INTERNAL_TOKEN (or JWT_SECRET) on both",
      );
      throw unavailable();
    }
    if (res.status >= 500) caller.log.warn({ status: res.status, path }, "billing error");
    return { kind: "json", status: res.status, body };
  }
}
