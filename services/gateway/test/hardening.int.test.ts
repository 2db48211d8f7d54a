// Hardening at the gateway: login lock-out resistance, ID tokens that end with their login,
// the WebSocket's one-user binding and cap, browser security headers, request ids, answers in the
// error shape for 416/431/NUL bytes/lone surrogates, auth before body validation, and account
// e-mails that answer in the same time whether the address exists or not.
import { mkdtempSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import WebSocket from "ws";
import { insertVerifiedUser } from "../../../tests/support/db.ts";
import { api, startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { rawHttp } from "../../../tests/support/raw-http.ts";
import { startSmtpCatcher } from "../../../tests/support/smtp.ts";
import { hashPassword } from "../src/auth/passwords.ts";

jest.setTimeout(60_000);

const PASSWORD = "correct horse battery";
const code = (r: { body: any }) => r.body?.error?.code;

let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
let t: TestGateway;
const dist = mkdtempSync(path.join(os.tmpdir(), "kt-dist-"));
writeFileSync(path.join(dist, "index.html"), "<!doctype html><html><head><title>K</title></head><body></body></html>");

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await startTestGateway({
    smtpUrl: smtp.url,
    env: {
      WEB_DIST_DIR: dist,
      TRUST_PROXY: "true",
      // The production defaults of the login policy (the test gateway otherwise relaxes them).
      LOGIN_FAILURES_PER_SOURCE: "20",
      LOGIN_FAILURES_PER_ACCOUNT_SOURCE: "10",
      LOGIN_SLOWDOWN_AFTER: "5",
      LOGIN_SLOWDOWN_MAX_MS: "300",
      // What used to lock the account: 10 login attempts per address per 15 minutes.
      RATE_LIMIT_AUTH_PER_EMAIL_PER_15_MIN: "10",
      WS_MAX_SOCKETS_PER_USER: "2",
    },
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

async function userWithPassword() {
  const { uid, email } = await insertVerifiedUser(t.db);
  await t.db.user.update({ where: { id: uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  return { uid, email };
}
const login = (email: string, password: string, ip: string) =>
  api(t.url, "POST", "/api/auth/login", { body: { email, password }, headers: { "x-forwarded-for": ip } });

describe("login: failures counted per account and per source; nobody can lock someone else out", () => {
  it("11 wrong passwords from one address block that address, not the owner's right password", async () => {
    const victim = await userWithPassword();
    const attacker = "203.0.113.7";
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await login(victim.email, "wrong password", attacker)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    // The attacker stays refused, even with the right password…
    const blocked = await login(victim.email, PASSWORD, attacker);
    expect([blocked.status, code(blocked)]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    // …while the owner, elsewhere, logs in at once (slowed down by at most LOGIN_SLOWDOWN_MAX_MS).
    const started = Date.now();
    const owner = await login(victim.email, PASSWORD, "198.51.100.20");
    expect(owner.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("30 parallel wrong passwords from one address on one account: at most 10 are checked", async () => {
    const victim = await userWithPassword();
    const attacker = "203.0.113.8";
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => login(victim.email, "wrong password", attacker)),
    );
    // A refused attempt (429) never reached the password check; every 401 was one verification.
    const checked = answers.filter((a) => a.status === 401).length;
    const refused = answers.filter((a) => a.status === 429).length;
    expect(checked + refused).toBe(30);
    expect(checked).toBeLessThanOrEqual(10);
    expect(checked).toBeGreaterThan(0);
    // The owner, from elsewhere, still logs in.
    expect((await login(victim.email, PASSWORD, "198.51.100.23")).status).toBe(200);
  });

  it("one source spraying many accounts is blocked after 20 failures, on every account", async () => {
    const sprayer = "203.0.113.99";
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      statuses.push((await login(`nobody${i}@example.com`, "guess", sprayer)).status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses[20]).toBe(429);
    const someone = await userWithPassword();
    expect((await login(someone.email, PASSWORD, sprayer)).status).toBe(429);
    expect((await login(someone.email, PASSWORD, "198.51.100.21")).status).toBe(200);
  });

  it("an account under attack from many addresses is slowed down, never refused", async () => {
    const victim = await userWithPassword();
    for (let i = 0; i < 8; i++) expect((await login(victim.email, "wrong", `192.0.2.${i + 1}`)).status).toBe(401);
    const started = Date.now();
    const owner = await login(victim.email, PASSWORD, "198.51.100.22");
    expect(owner.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250); // the slowdown applies…
    expect(Date.now() - started).toBeLessThan(2000); // …and stays short
  });
});

describe("ID tokens end with their login", () => {
  it("logout ends that login's ID token (other logins keep theirs)", async () => {
    const u = await userWithPassword();
    const a = (await login(u.email, PASSWORD, "198.51.100.30")).body;
    const b = (await login(u.email, PASSWORD, "198.51.100.31")).body;
    expect((await api(t.url, "GET", "/api/user-usage", { token: a.idToken })).status).toBe(200);
    expect((await api(t.url, "POST", "/api/auth/logout", { body: { refreshToken: a.refreshToken } })).status).toBe(204);
    const after = await api(t.url, "GET", "/api/user-usage", { token: a.idToken });
    expect([after.status, code(after)]).toEqual([401, "TOKEN_EXPIRED"]);
    expect((await api(t.url, "GET", "/api/user-usage", { token: b.idToken })).status).toBe(200);
    // The socket refuses it too.
    expect(await wsAuth(a.idToken)).toEqual({ closed: 4401 });
  });

  it("a password reset ends every ID token issued before it; a new login works", async () => {
    const u = await userWithPassword();
    const s = (await login(u.email, PASSWORD, "198.51.100.32")).body;
    expect((await api(t.url, "POST", "/api/auth/password-reset", { body: { email: u.email } })).status).toBe(202);
    const mail = await smtp.waitFor((m) => m.to.includes(u.email));
    const token = /token=([A-Za-z0-9_%-]+)/.exec(mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "="))?.[1];
    const confirm = await api(t.url, "POST", "/api/auth/password-reset/confirm", {
      body: { token: decodeURIComponent(token!), password: "a brand new password" },
    });
    expect(confirm.status).toBe(204);
    const old = await api(t.url, "GET", "/api/user-usage", { token: s.idToken });
    expect([old.status, code(old)]).toEqual([401, "TOKEN_EXPIRED"]);
    const fresh = (await login(u.email, "a brand new password", "198.51.100.33")).body;
    expect((await api(t.url, "GET", "/api/user-usage", { token: fresh.idToken })).status).toBe(200);
  });
});

/** Opens /ws, sends the given frames at once, reports "ready" or the close code. */
function wsAuth(...tokens: string[]): Promise<{ ready: true; ws: WebSocket } | { closed: number }> {
  const ws = new WebSocket(`${t.url.replace("http", "ws")}/ws`);
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      for (const token of tokens) ws.send(JSON.stringify({ type: "auth", token }));
    });
    ws.on("message", (d) => {
      if (JSON.parse(d.toString()).type === "ready") resolve({ ready: true, ws });
    });
    ws.once("close", (c) => resolve({ closed: c }));
    ws.once("error", reject);
  });
}

describe("/ws", () => {
  it("two auth frames back to back bind the socket to the first user only", async () => {
    const a = await userWithPassword();
    const b = await userWithPassword();
    const ta = await t.gw.signer.sign({ sub: a.uid, email: a.email, email_verified: true });
    const tb = await t.gw.signer.sign({ sub: b.uid, email: b.email, email_verified: true });
    const r = await wsAuth(ta, tb);
    expect("ready" in r).toBe(true);
    await new Promise((res) => setTimeout(res, 200));
    expect(t.gw.hub.count(a.uid)).toBe(1);
    expect(t.gw.hub.count(b.uid)).toBe(0);
    if ("ws" in r) r.ws.close();
  });

  it("caps the sockets per user (WS_MAX_SOCKETS_PER_USER): one more closes with 4429", async () => {
    const a = await userWithPassword();
    const token = await t.gw.signer.sign({ sub: a.uid, email: a.email, email_verified: true });
    const first = await wsAuth(token);
    const second = await wsAuth(token);
    expect("ready" in first && "ready" in second).toBe(true);
    expect(await wsAuth(token)).toEqual({ closed: 4429 });
    for (const s of [first, second]) if ("ws" in s) s.ws.close();
  });
});

describe("browser security headers", () => {
  it("HTML pages get a CSP with frame-ancestors, X-Frame-Options, nosniff and Referrer-Policy; no HSTS over http", async () => {
    const r = await fetch(`${t.url}/en/summary`);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = r.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("referrer-policy")).toBe("no-referrer");
    expect(r.headers.get("strict-transport-security")).toBeNull();
  });

  it("HSTS when the request came over HTTPS through the trusted proxy", async () => {
    const r = await fetch(`${t.url}/en/summary`, { headers: { "x-forwarded-proto": "https" } });
    expect(r.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    const api1 = await fetch(`${t.url}/healthz`, { headers: { "x-forwarded-proto": "https" } });
    expect(api1.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    expect(api1.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("x-request-id", () => {
  it("a short, safe id is kept; a long one or one with markup is replaced by a generated one", async () => {
    const ok = await api(t.url, "GET", "/healthz", { headers: { "x-request-id": "abc-123.x_y" } });
    expect(ok.headers.get("x-request-id")).toBe("abc-123.x_y");
    for (const bad of ["x".repeat(8000), "<script>alert(1)</script>", "a b"]) {
      const r = await api(t.url, "GET", "/healthz", { headers: { "x-request-id": bad } });
      expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe("answers in the error shape, 4xx not 5xx", () => {
  it("431 for headers over the limit", async () => {
    const res = await rawHttp(t.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toEqual({ error: { code: "HEADERS_TOO_LARGE", message: expect.any(String) } });
  });

  it("a request without Host gets a 400 in the error shape, not a bare one", async () => {
    for (const path of ["/healthz", "/api/auth/account", "/api/nope"]) {
      const res = await rawHttp(t.url, `GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expect([path, res.status]).toEqual([path, 400]);
      expect(JSON.parse(res.body)).toEqual({ error: { code: "VALIDATION_FAILED", message: expect.any(String) } });
    }
  });

  it("416 has a body in the error shape", async () => {
    const { uid, email } = await insertVerifiedUser(t.db);
    const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
    const jobId = crypto.randomUUID();
    await t.db.transcriptionJob.create({
      data: {
        id: jobId,
        userId: uid,
        correlationId: "c",
        audioKey: `users/${uid}/audio/${jobId}.mp3`,
        audioMime: "audio/mpeg",
        audioFormat: "mp3",
        audioBytes: 100,
        durationSeconds: 1,
        originalName: "a.mp3",
        model: "meeting",
        language: "en",
        audioExpiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    const r = await api(t.url, "GET", `/api/audio/${jobId}`, { token, headers: { range: "bytes=500-600" } });
    expect(r.status).toBe(416);
    expect(r.headers.get("content-range")).toBe("bytes */100");
    expect(code(r)).toBe("RANGE_NOT_SATISFIABLE");
  });

  it.each([
    ["a NUL byte", "Some text\u0000 with a NUL byte in it. ".repeat(40)],
    ["a lone surrogate", "Some text \ud800 with half a character. ".repeat(40)],
  ])("summary text with %s: 400 VALIDATION_FAILED (was 502)", async (_n, text) => {
    const { uid, email } = await insertVerifiedUser(t.db);
    const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
    const r = await api(t.url, "POST", "/api/summary/summarize", {
      token,
      // JSON.stringify writes both as \u escapes, as a hostile client would.
      body: { text, desiredLength: 200, requiredPhrases: ["Some text", "with"] },
    });
    expect([r.status, code(r)]).toEqual([400, "VALIDATION_FAILED"]);
    expect(await t.db.textRun.count({ where: { userId: uid } })).toBe(0);
  });

  it("a NUL byte in a login e-mail is a 400, not a 500", async () => {
    const r = await api(t.url, "POST", "/api/auth/login", { body: { email: "a\u0000@example.com", password: "x" } });
    expect([r.status, code(r)]).toEqual([400, "VALIDATION_FAILED"]);
  });

  it("no token is a 401 before the body is validated", async () => {
    for (const [method, p] of [
      ["POST", "/api/summary/summarize"],
      ["POST", "/api/generate-titles-and-headings"],
      ["POST", "/api/auth/users"],
    ] as const) {
      const r = await api(t.url, method, p, { body: { nonsense: true } });
      expect([p, r.status, code(r)]).toEqual([p, 401, "UNAUTHENTICATED"]);
    }
  });
});

describe("password reset and resend-verification take the same time for every address", () => {
  it("the answer does not wait for the mail (which only an existing account gets)", async () => {
    // An SMTP server that accepts connections and never says a word: a mail to it takes forever.
    const sockets: net.Socket[] = [];
    const mute = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => mute.listen(0, "127.0.0.1", r));
    const port = (mute.address() as net.AddressInfo).port;
    const slow = await startTestGateway({ smtpUrl: `smtp://127.0.0.1:${port}` });
    try {
      const { email } = await insertVerifiedUser(slow.db);
      await slow.db.user.update({ where: { email }, data: { emailVerified: false } });
      for (const p of ["/api/auth/password-reset", "/api/auth/resend-verification"]) {
        for (const address of [email, "unknown-person@example.com"]) {
          const started = Date.now();
          const r = await api(slow.url, "POST", p, { body: { email: address } });
          expect([p, address, r.status]).toEqual([p, address, 202]);
          expect(Date.now() - started).toBeLessThan(1000);
        }
      }
    } finally {
      for (const s of sockets) s.destroy();
      mute.close();
      await slow.close();
    }
  });
});
