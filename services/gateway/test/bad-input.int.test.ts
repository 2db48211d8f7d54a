import { api, startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
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

const code = (r: { body: any }) => r.body?.error?.code;

describe("bad input gets a clear 4xx with a stable code", () => {
  it("malformed JSON", async () => {
    const r = await api(t.url, "POST", "/api/auth/login", { rawBody: '{"email": "a@b.c", "password": ' });
    expect(r.status).toBe(400);
    expect(code(r)).toBe("MALFORMED_JSON");
  });

  it("an empty JSON body", async () => {
    const r = await api(t.url, "POST", "/api/auth/login", { rawBody: "" });
    expect(r.status).toBe(400);
    expect(["MALFORMED_JSON", "VALIDATION_FAILED"]).toContain(code(r));
  });

  it("a wrong content type", async () => {
    const r = await api(t.url, "POST", "/api/auth/login", {
      rawBody: "email=a",
      headers: { "content-type": "text/xml" },
    });
    expect(r.status).toBe(415);
    expect(code(r)).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it.each([
    ["missing fields", {}],
    ["missing password", { email: "a@example.com" }],
    ["not an e-mail", { email: "not-an-email", password: "x" }],
    ["e-mail over 254 characters", { email: `${"a".repeat(250)}@example.com`, password: "x" }],
    ["password over 1,024 characters", { email: "a@example.com", password: "p".repeat(1025) }],
    ["wrong types", { email: 42, password: ["x"] }],
  ])("login: %s", async (_name, body) => {
    const r = await api(t.url, "POST", "/api/auth/login", { body });
    expect(r.status).toBe(400);
    expect(code(r)).toBe("VALIDATION_FAILED");
    expect(r.body.error.message).toEqual(expect.any(String));
  });

  it("register: short password, unknown language", async () => {
    const short = await api(t.url, "POST", "/api/auth/register", {
      body: { email: "s@example.com", password: "short" },
    });
    expect(code(short)).toBe("VALIDATION_FAILED");
    const lang = await api(t.url, "POST", "/api/auth/register", {
      body: { email: "l@example.com", password: "long enough", language: "xx" },
    });
    expect(code(lang)).toBe("VALIDATION_FAILED");
    expect(await t.db.user.count({ where: { email: { in: ["s@example.com", "l@example.com"] } } })).toBe(0);
  });

  it("SQL and HTML in fields are data, not code", async () => {
    const email = "robert'); drop table users;--@example.com";
    const r = await api(t.url, "POST", "/api/auth/login", { body: { email, password: "<script>alert(1)</script>" } });
    expect(r.status).toBe(400); // not a valid address
    const html = await api(t.url, "POST", "/api/auth/register", {
      body: { email: "o'brien+<b>x</b>@example.com", password: "<img src=x onerror=alert(1)>" },
    });
    expect([201, 400]).toContain(html.status);
    expect(await t.db.user.count()).toBeGreaterThanOrEqual(0); // table still there
    const login = await api(t.url, "POST", "/api/auth/login", {
      body: { email: "x' OR '1'='1@example.com", password: "' OR 1=1 --" },
    });
    expect([400, 401]).toContain(login.status);
  });

  it.each([
    ["no header", undefined],
    ["garbage", "garbage"],
    ["a token signed with another key", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"],
  ])("usage with a bad ID token: %s", async (_n, token) => {
    const r = await api(t.url, "GET", "/api/user-usage", { token });
    expect(r.status).toBe(401);
    expect(code(r)).toBe("UNAUTHENTICATED");
  });

  it("an expired ID token", async () => {
    const expired = await t.gw.signer.sign(
      { sub: "u", email: "e@x.y", email_verified: true },
      Date.now() - 2 * 3600_000,
    );
    const r = await api(t.url, "GET", "/api/user-usage", { token: expired });
    expect(r.status).toBe(401);
    expect(code(r)).toBe("TOKEN_EXPIRED");
  });

  it("bad verify and reset tokens", async () => {
    const v = await api(t.url, "POST", "/api/auth/verify-email", { body: { token: "x".repeat(43) } });
    expect(v.status).toBe(400);
    expect(code(v)).toBe("INVALID_TOKEN");
    const short = await api(t.url, "POST", "/api/auth/verify-email", { body: { token: "abc" } });
    expect(code(short)).toBe("VALIDATION_FAILED");
    const rc = await api(t.url, "POST", "/api/auth/password-reset/confirm", {
      body: { token: "y".repeat(43), password: "longenough" },
    });
    expect(code(rc)).toBe("INVALID_TOKEN");
  });

  it("a registration whose mail cannot be sent leaves no account behind", async () => {
    const broken = await startTestGateway({ smtpUrl: "smtp://127.0.0.1:1" });
    try {
      const r = await api(broken.url, "POST", "/api/auth/register", {
        body: { email: "nomail@example.com", password: "long enough" },
      });
      // The answer does not depend on the mail (a taken address answers alike); the account is
      // undone once its verification mail fails, so the address can register again.
      expect(r.status).toBe(202);
      while ((await broken.db.user.count()) > 0) await new Promise((res) => setTimeout(res, 50));
      expect(await broken.db.emailToken.count()).toBe(0);
    } finally {
      await broken.close();
    }
  });

  it("unknown API routes answer in the error shape", async () => {
    const r = await api(t.url, "GET", "/api/nope");
    expect(r.status).toBe(404);
    expect(code(r)).toBe("NOT_FOUND");
  });
});

describe("rate limits", () => {
  it("limits login failures per account and source, and logins per IP, with 429 RATE_LIMITED", async () => {
    const limited = await startTestGateway({
      smtpUrl: smtp.url,
      env: { LOGIN_FAILURES_PER_ACCOUNT_SOURCE: "3", RATE_LIMIT_AUTH_PER_IP_PER_MINUTE: "6" },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (await api(limited.url, "POST", "/api/auth/login", { body: { email: "v@example.com", password: "x" } }))
            .status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      const ip: number[] = [];
      for (let i = 0; i < 4; i++) {
        ip.push(
          (await api(limited.url, "POST", "/api/auth/login", { body: { email: `w${i}@example.com`, password: "x" } }))
            .status,
        );
      }
      expect(ip.slice(0, 2)).toEqual([401, 401]);
      const last = await api(limited.url, "POST", "/api/auth/login", {
        body: { email: "z@example.com", password: "x" },
      });
      expect(last.status).toBe(429);
      expect(code(last)).toBe("RATE_LIMITED");
    } finally {
      await limited.close();
    }
  });
});
