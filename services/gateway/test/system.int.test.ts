import { addMonthsAnchored, ERROR_CODES } from "@kikitori/shared";
import { api, startTestGateway, type TestGateway, tokenLinkFrom } from "../../../tests/support/gateway.ts";
import { startSmtpCatcher } from "../../../tests/support/smtp.ts";

let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
let t: TestGateway;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await startTestGateway({ smtpUrl: smtp.url });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

it("answers /healthz and a bare /readyz publicly, every dependency checked on the ops port", async () => {
  expect((await api(t.url, "GET", "/healthz")).body).toEqual({ status: "ok" });
  const ready = await api(t.url, "GET", "/readyz");
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ status: "ok" });
  const detailed = await api(t.opsUrl, "GET", "/readyz");
  expect(detailed.status).toBe(200);
  expect(detailed.body.checks).toEqual({ database: "ok", redis: "ok", objectStore: "ok" });
  expect((await api(t.opsUrl, "GET", "/healthz")).body).toEqual({ status: "ok" });
});

it("stays ready through an object-store outage (degraded on the ops port), not through a Redis one", async () => {
  const { readiness } = await import("@kikitori/shared/server");
  const down = () => Promise.reject(new Error("connect ECONNREFUSED"));
  const ok = () => Promise.resolve();
  const s3Down = await readiness({ database: ok, redis: ok, objectStore: down }, () => false, ["objectStore"]);
  expect(s3Down.code).toBe(200);
  expect(s3Down.body.status).toBe("degraded");
  const redisDown = await readiness({ database: ok, redis: down, objectStore: ok }, () => false, ["objectStore"]);
  expect(redisDown.code).toBe(503);
  expect(t.gw.optionalChecks).toEqual(["objectStore"]);
});

it("serves OpenAPI at /api/docs with the identity and usage calls", async () => {
  const doc = await api(t.url, "GET", "/api/docs/json");
  expect(doc.status).toBe(200);
  expect(doc.body.openapi).toMatch(/^3\./);
  for (const p of [
    "/api/auth/register",
    "/api/auth/verify-email",
    "/api/auth/login",
    "/api/auth/refresh",
    "/api/auth/logout",
    "/api/auth/password-reset",
    "/api/auth/password-reset/confirm",
    "/api/auth/account",
    "/api/auth/users",
    "/api/auth/users/{uid}",
    "/api/user-usage",
    "/api/transcriptions",
    "/api/transcriptions/{jobId}",
    "/api/transcriptions/{jobId}/export",
    "/api/transcriptions/{jobId}/retry",
    "/api/transcriptions/{jobId}/speakers",
    "/api/transcriptions/{jobId}/versions",
    "/api/transcriptions/{jobId}/versions/{version}",
    "/api/transcriptions/{jobId}/versions/{version}/restore",
    "/api/transcriptions/{jobId}/fidelity",
  ]) {
    expect(Object.keys(doc.body.paths)).toContain(p);
  }
  // The workspace edit: PATCH with its body schema, and 409 (stale version) among its answers.
  const patch = doc.body.paths["/api/transcriptions/{jobId}"].patch;
  expect(Object.keys(patch.requestBody.content["application/json"].schema.properties)).toEqual(
    expect.arrayContaining(["version", "title", "speakers", "segments", "rewrittenText"]),
  );
  expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(["200", "409"]));
  expect(doc.body.paths["/api/transcriptions/{jobId}"].delete).toBeDefined();
  const ui = await fetch(`${t.url}/api/docs`, { redirect: "follow" });
  expect(ui.status).toBe(200);
});

it("echoes a correlation id and exposes Prometheus metrics", async () => {
  const r = await api(t.url, "GET", "/healthz", { headers: { "x-request-id": "abc-123" } });
  expect(r.headers.get("x-request-id")).toBe("abc-123");
  const m = await fetch(`${t.opsUrl}/metrics`).then((x) => x.text());
  expect(m).toContain("http_request_duration_seconds");
  expect(m).toContain("websocket_open_sockets");
  // Not on the public port (the Ingress sends all of / there).
  expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
});

it("returns the usage record of a new user", async () => {
  const email = `usage-${Date.now()}@example.com`;
  const before = Date.now();
  const reg = await api(t.url, "POST", "/api/auth/register", { body: { email, password: "long enough" } });
  const { token } = tokenLinkFrom((await smtp.waitFor((m) => m.to.includes(email))).raw);
  await api(t.url, "POST", "/api/auth/verify-email", { body: { token } });
  const login = await api(t.url, "POST", "/api/auth/login", { body: { email, password: "long enough" } });
  expect(reg.status).toBe(202);
  const usage = await api(t.url, "GET", `/api/user-usage?uid=${login.body.user.uid}`, { token: login.body.idToken });
  expect(usage.status).toBe(200);
  expect(usage.body).toEqual({
    totalMinutesUsed: 0,
    maxMinutes: 30,
    titlesAndHeadingsUsage: 0,
    maxTitlesAndHeadingsUsage: 3,
    summarizeUsage: 0,
    maxSummaryUsage: 3,
    resetDate: expect.any(String),
    plan: "free",
    pendingPlan: null,
    maxUploadBytes: 20_971_520,
  });
  const row = await t.db.user.findUniqueOrThrow({ where: { id: login.body.user.uid } });
  expect(row.periodStart.getTime()).toBeGreaterThanOrEqual(before - 1000);
  expect(usage.body.resetDate).toBe(addMonthsAnchored(row.periodStart, 1).toISOString());
  const noUid = await api(t.url, "GET", "/api/user-usage", { token: login.body.idToken });
  expect(noUid.body).toEqual(usage.body);
});

it("every error code has a status in the 4xx/5xx range", () => {
  for (const [code, status] of Object.entries(ERROR_CODES)) {
    expect([code, status >= 400 && status < 600]).toEqual([code, true]);
  }
});
