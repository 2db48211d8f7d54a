// The billing service's records (plans, subscriptions, payments, receipts), reached over its internal
// HTTP API (BILLING_URL): every call carries the shared x-internal-token and, when known, the user's
// uid in x-kikitori-uid (docs/decisions/0006-billing.md). The gateway keeps no billing rows itself.
import { INTERNAL_TOKEN_HEADER, INTERNAL_UID_HEADER } from "@kikitori/shared/server";
import type { BillingCall, BillingRepository } from "./usecases.ts";

export interface BillingServiceOptions {
  billingUrl: string;
  internalToken: string;
  timeoutMs: number;
}

/** The billing service's HTTP API as a repository; a network failure rejects (the use case answers 503). */
export function billingServiceRepository(opts: BillingServiceOptions): BillingRepository {
  return {
    async send(call: BillingCall) {
      const headers: Record<string, string> = {
        [INTERNAL_TOKEN_HEADER]: opts.internalToken,
        "x-request-id": call.requestId,
      };
      if (call.uid) headers[INTERNAL_UID_HEADER] = call.uid;
      let body: string | ArrayBuffer | undefined;
      if (call.raw) {
        body = new Uint8Array(call.raw.bytes).buffer; // a copy of exactly these bytes
        headers["content-type"] = call.raw.contentType;
        if (call.raw.signature) headers["stripe-signature"] = call.raw.signature;
      } else if (call.body !== undefined) {
        body = JSON.stringify(call.body);
        headers["content-type"] = "application/json";
      }
      const res = await fetch(opts.billingUrl + call.path, {
        method: call.method,
        headers,
        body,
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      const contentType = res.headers.get("content-type") ?? "";
      if (contentType.startsWith("application/pdf")) {
        return {
          status: res.status,
          contentType,
          bytes: Buffer.from(await res.arrayBuffer()),
          disposition: res.headers.get("content-disposition"),
        };
      }
      return { status: res.status, contentType, text: await res.text(), disposition: null };
    },
  };
}
