// The billing use cases (services/gateway/src/billing/usecases.ts) on an in-memory billing API: what
// each call asks the billing service, and how its answers become the user's.
import { AppError } from "@kikitori/shared";
import { newTestBillingService } from "../../../tests/support/use-cases.ts";

const UID = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22";

it("asks with the user's uid and passes the billing service's JSON and status back as they are", async () => {
  const { service, billing, caller } = newTestBillingService(UID);
  billing.answer = { status: 402, json: { code: "PAYMENT_FAILED", message: "declined" } };
  const answer = await service.changePlan(caller, { plan: "pro" } as never);
  expect(answer).toEqual({ kind: "json", status: 402, body: { code: "PAYMENT_FAILED", message: "declined" } });
  expect(billing.calls).toEqual([
    {
      method: "POST",
      path: "/api/subscriptions/create-or-update-subscription",
      uid: UID,
      requestId: "req-1",
      body: { plan: "pro" },
    },
  ]);
});

it("puts the language and the plan in the query strings", async () => {
  const { service, billing, caller } = newTestBillingService(null);
  await service.plans(caller, "ja");
  await service.plans(caller);
  await service.quote(caller, { plan: "business", lang: "pt-BR" } as never);
  expect(billing.calls.map((c) => [c.method, c.path, c.uid])).toEqual([
    ["GET", "/api/subscriptions/plans?lang=ja", null],
    ["GET", "/api/subscriptions/plans", null],
    ["GET", "/api/subscriptions/quote?plan=business&lang=pt-BR", null],
  ]);
});

it("returns a receipt as PDF bytes, and the billing service's JSON error when there is none", async () => {
  const { service, billing, caller } = newTestBillingService(UID);
  billing.answer = { status: 200, pdf: Buffer.from("%PDF-1.7"), disposition: 'attachment; filename="r.pdf"' };
  const pdf = await service.receipt(caller, "pay/1");
  expect(pdf).toEqual({ kind: "pdf", bytes: Buffer.from("%PDF-1.7"), disposition: 'attachment; filename="r.pdf"' });
  expect(billing.calls[0]?.path).toBe("/api/billing/receipts/pay%2F1");

  billing.answer = { status: 404, json: { code: "NOT_FOUND" } };
  expect(await service.receipt(caller, "x")).toEqual({ kind: "json", status: 404, body: { code: "NOT_FOUND" } });
});

it("answers 503 when billing is unreachable, answers without JSON, or refuses the internal token", async () => {
  const { service, billing, caller, logged } = newTestBillingService(UID);
  const outcomes = [];
  for (const answer of ["unreachable", { status: 502, text: "<html>bad gateway</html>" }, { status: 401, json: {} }]) {
    billing.answer = answer as typeof billing.answer;
    outcomes.push(await service.current(caller, "en").catch((e) => e));
  }
  for (const err of outcomes) {
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("SERVICE_UNAVAILABLE");
  }
  expect(logged.map((l) => l.msg)).toEqual([
    "billing service unreachable",
    "billing answered without JSON",
    expect.stringContaining("billing refused the internal token"),
  ]);
});

it("passes a 5xx JSON answer on and logs it as a warning", async () => {
  const { service, billing, caller, logged } = newTestBillingService(UID);
  billing.answer = { status: 503, json: { code: "SERVICE_UNAVAILABLE" } };
  expect(await service.replaceCard(caller, { paymentMethodId: "pm_1" } as never)).toMatchObject({ status: 503 });
  expect(logged).toEqual([{ level: "warn", msg: "billing error" }]);
});

it("passes the webhook's exact bytes and signature on, with no uid", async () => {
  const { service, billing, caller } = newTestBillingService(null);
  billing.answer = { status: 200, json: { received: true, result: "applied" } };
  const raw = { bytes: Buffer.from('{"id":"evt_1"}'), contentType: "application/json", signature: "t=1,v1=abc" };
  expect(await service.webhook(caller, raw)).toEqual({
    kind: "json",
    status: 200,
    body: { received: true, result: "applied" },
  });
  expect(billing.calls).toEqual([{ method: "POST", path: "/api/billing/webhook", uid: null, requestId: "req-1", raw }]);
});
