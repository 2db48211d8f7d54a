import { api, startTestGateway, type TestGateway, tokenLinkFrom } from "../../../tests/support/gateway.ts";
import { startSmtpCatcher } from "../../../tests/support/smtp.ts";

let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
let t: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await startTestGateway({ smtpUrl: smtp.url, now: () => new Date(clock) });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

let n = 0;
const freshEmail = () => `user${Date.now()}-${n++}@example.com`;
const PASSWORD = "correct horse battery";

async function registerAndVerify(email = freshEmail(), language = "en") {
  const reg = await api(t.url, "POST", "/api/auth/register", { body: { email, password: PASSWORD, language } });
  expect(reg.status).toBe(202);
  const mail = await smtp.waitFor((m) => m.to.includes(email));
  const { token } = tokenLinkFrom(mail.raw);
  const ver = await api(t.url, "POST", "/api/auth/verify-email", { body: { token } });
  expect(ver.status).toBe(200);
  const login = await api(t.url, "POST", "/api/auth/login", { body: { email, password: PASSWORD } });
  expect(login.status).toBe(200);
  return { email, uid: login.body.user.uid as string, session: login.body, verifyToken: token };
}

describe("registration and verification", () => {
  it("registers, mails a verification link in the user's language, verifies, then logs in", async () => {
    const email = freshEmail();
    const reg = await api(t.url, "POST", "/api/auth/register", { body: { email, password: PASSWORD, language: "ja" } });
    expect(reg.status).toBe(202);
    expect(reg.body).toEqual({ message: expect.any(String) });
    const uid = (await t.db.user.findUniqueOrThrow({ where: { email } })).id;

    const early = await api(t.url, "POST", "/api/auth/login", { body: { email, password: PASSWORD } });
    expect(early.status).toBe(403);
    expect(early.body.error.code).toBe("EMAIL_NOT_VERIFIED");

    const mail = await smtp.waitFor((m) => m.to.includes(email));
    expect(mail.raw).toMatch(/Subject: =\?UTF-8\?/); // Japanese subject is encoded
    const { link, token } = tokenLinkFrom(mail.raw);
    expect(link).toContain("/ja/verify-email?token=");

    expect((await api(t.url, "POST", "/api/auth/verify-email", { body: { token } })).body).toEqual({
      emailVerified: true,
    });
    const again = await api(t.url, "POST", "/api/auth/verify-email", { body: { token } });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe("TOKEN_USED");

    const login = await api(t.url, "POST", "/api/auth/login", {
      body: { email: email.toUpperCase(), password: PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ expiresIn: 3600, user: { uid, email, emailVerified: true } });
    expect(login.body.idToken.split(".")).toHaveLength(3);
  });

  it("a taken address answers like a new one, creates nothing and tells the owner by e-mail", async () => {
    const { email, uid } = await registerAndVerify();
    const fresh = await api(t.url, "POST", "/api/auth/register", { body: { email: freshEmail(), password: PASSWORD } });
    const dup = await api(t.url, "POST", "/api/auth/register", {
      body: { email: email.toUpperCase(), password: "another password" },
    });
    // No account enumeration: the same status and body for a new and a taken address.
    expect([dup.status, dup.body]).toEqual([fresh.status, fresh.body]);
    expect(dup.status).toBe(202);
    const mail = await smtp.waitFor(
      (m) => m.to.includes(email) && /register/i.test(m.raw) && !/verify-email/.test(m.raw),
    );
    expect(mail.raw).toContain("/en/password-reset");
    expect(await t.db.user.count({ where: { email } })).toBe(1);
    // The owner's password and login are untouched.
    expect((await t.db.user.findUniqueOrThrow({ where: { email } })).id).toBe(uid);
    const login = await api(t.url, "POST", "/api/auth/login", { body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
  });

  it("resends a verification mail only for an unverified account", async () => {
    const email = freshEmail();
    await api(t.url, "POST", "/api/auth/register", { body: { email, password: PASSWORD } });
    await smtp.waitFor((m) => m.to.includes(email));
    const before = smtp.mails.filter((m) => m.to.includes(email)).length;
    const r = await api(t.url, "POST", "/api/auth/resend-verification", { body: { email, language: "en" } });
    expect(r.status).toBe(202);
    await smtp.waitFor((m) => m.to.includes(email) && smtp.mails.filter((x) => x.to.includes(email)).length > before);
    const unknown = await api(t.url, "POST", "/api/auth/resend-verification", { body: { email: freshEmail() } });
    expect(unknown.status).toBe(202);
  });
});

describe("login", () => {
  it("answers the same for an unknown e-mail and a wrong password", async () => {
    const { email } = await registerAndVerify();
    const wrong = await api(t.url, "POST", "/api/auth/login", { body: { email, password: "nope-nope" } });
    const unknown = await api(t.url, "POST", "/api/auth/login", {
      body: { email: freshEmail(), password: "nope-nope" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe("INVALID_CREDENTIALS");
  });
});

describe("refresh tokens", () => {
  it("rotates: the new token works, the old one does not", async () => {
    const { session } = await registerAndVerify();
    const r1 = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: session.refreshToken } });
    expect(r1.status).toBe(200);
    expect(r1.body.refreshToken).not.toBe(session.refreshToken);
    const old = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: session.refreshToken } });
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe("INVALID_REFRESH_TOKEN");
    // within the grace window the family survives
    const r2 = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: r1.body.refreshToken } });
    expect(r2.status).toBe(200);
  });

  it("revokes the whole family when a rotated token is replayed later", async () => {
    const { session } = await registerAndVerify();
    const r1 = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: session.refreshToken } });
    clock += 60_000;
    try {
      const replay = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: session.refreshToken } });
      expect(replay.status).toBe(401);
      const current = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: r1.body.refreshToken } });
      expect(current.status).toBe(401);
    } finally {
      clock -= 60_000;
    }
  });

  it("logout revokes the refresh token", async () => {
    const { session } = await registerAndVerify();
    expect(
      (await api(t.url, "POST", "/api/auth/logout", { body: { refreshToken: session.refreshToken } })).status,
    ).toBe(204);
    const r = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: session.refreshToken } });
    expect(r.status).toBe(401);
  });
});

describe("password reset", () => {
  it("mails a link, sets the new password once, ends old sessions", async () => {
    const { email, session } = await registerAndVerify();
    const req = await api(t.url, "POST", "/api/auth/password-reset", { body: { email, language: "en" } });
    expect(req.status).toBe(202);
    const mail = await smtp.waitFor((m) => m.to.includes(email) && m.raw.includes("password-reset/confirm"));
    const { token, link } = tokenLinkFrom(mail.raw);
    expect(link).toContain("/en/password-reset/confirm?token=");

    const newPassword = "a brand new passphrase";
    expect(
      (await api(t.url, "POST", "/api/auth/password-reset/confirm", { body: { token, password: newPassword } })).status,
    ).toBe(204);
    const reuse = await api(t.url, "POST", "/api/auth/password-reset/confirm", {
      body: { token, password: "another one!" },
    });
    expect(reuse.body.error.code).toBe("TOKEN_USED");

    expect((await api(t.url, "POST", "/api/auth/login", { body: { email, password: PASSWORD } })).status).toBe(401);
    expect((await api(t.url, "POST", "/api/auth/login", { body: { email, password: newPassword } })).status).toBe(200);
    const oldRefresh = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: session.refreshToken } });
    expect(oldRefresh.status).toBe(401);
  });

  it("answers 202 for an unknown e-mail and sends nothing", async () => {
    const email = freshEmail();
    const r = await api(t.url, "POST", "/api/auth/password-reset", { body: { email, language: "en" } });
    expect(r.status).toBe(202);
    await new Promise((res) => setTimeout(res, 300));
    expect(smtp.mails.some((m) => m.to.includes(email))).toBe(false);
  });

  it("refuses an expired link", async () => {
    const { email } = await registerAndVerify();
    await api(t.url, "POST", "/api/auth/password-reset", { body: { email } });
    const mail = await smtp.waitFor((m) => m.to.includes(email) && m.raw.includes("password-reset/confirm"));
    const { token } = tokenLinkFrom(mail.raw);
    clock += 61 * 60_000;
    try {
      const r = await api(t.url, "POST", "/api/auth/password-reset/confirm", {
        body: { token, password: "whatever123" },
      });
      expect(r.body.error.code).toBe("EMAIL_TOKEN_EXPIRED");
    } finally {
      clock -= 61 * 60_000;
    }
  });
});

describe("backend user calls and uid checks", () => {
  it("records the backend user idempotently and refuses another uid", async () => {
    const { email, uid, session } = await registerAndVerify();
    const a = await api(t.url, "POST", "/api/auth/users", { token: session.idToken, body: { uid, email } });
    const b = await api(t.url, "POST", "/api/auth/users", { token: session.idToken, body: { uid, email } });
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    const other = await api(t.url, "POST", "/api/auth/users", {
      token: session.idToken,
      body: { uid: "00000000-0000-4000-8000-000000000000", email },
    });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe("UID_MISMATCH");
    const usage = await api(t.url, "GET", "/api/user-usage?uid=someone-else", { token: session.idToken });
    expect(usage.body.error.code).toBe("UID_MISMATCH");
    const del = await api(t.url, "DELETE", `/api/auth/users/${"x".repeat(10)}`, {
      token: session.idToken,
      body: { password: PASSWORD },
    });
    expect(del.body.error.code).toBe("UID_MISMATCH");
    // Deleting the data takes the password as well as the token.
    const bare = await api(t.url, "DELETE", `/api/auth/users/${uid}`, { token: session.idToken });
    expect([bare.status, bare.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    const wrong = await api(t.url, "DELETE", `/api/auth/users/${uid}`, {
      token: session.idToken,
      body: { password: "not the password" },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([403, "PASSWORD_INCORRECT"]);
    const ok = await api(t.url, "DELETE", `/api/auth/users/${uid}`, {
      token: session.idToken,
      body: { password: PASSWORD },
    });
    expect(ok.status).toBe(200);
  });

  it("after the backend user is deleted, its jobs' audio answers 410, not 500", async () => {
    const { uid, session } = await registerAndVerify();
    const { insertJob } = await import("../../../tests/support/db.ts");
    const jobId = await insertJob(t.db, uid, { status: "completed" });
    const del = await api(t.url, "DELETE", `/api/auth/users/${uid}`, {
      token: session.idToken,
      body: { password: PASSWORD },
    });
    expect(del.status).toBe(200);
    const audio = await api(t.url, "GET", `/api/audio/${jobId}`, { token: session.idToken });
    expect([audio.status, audio.body.error.code]).toEqual([410, "AUDIO_EXPIRED"]);
  });
});

describe("account deletion", () => {
  it("removes identity, sessions, usage and stored objects", async () => {
    const { email, uid, session } = await registerAndVerify();
    const store = (await import("@kikitori/shared/server")).createObjectStore({
      S3_ENDPOINT: t.env.S3_ENDPOINT,
      S3_ACCESS_KEY: t.env.S3_ACCESS_KEY,
      S3_SECRET_KEY: t.env.S3_SECRET_KEY,
      S3_BUCKET: t.env.S3_BUCKET,
      S3_REGION: "us-east-1",
    });
    await store.put(`users/${uid}/audio/a.mp3`, Buffer.from("x"), 1, "audio/mpeg");
    await store.put(`users/other/audio/b.mp3`, Buffer.from("y"), 1, "audio/mpeg");

    const unauth = await api(t.url, "DELETE", "/api/auth/account");
    expect(unauth.status).toBe(401);
    // The token alone is not enough: the password is required (400 without, 403 when wrong).
    const bare = await api(t.url, "DELETE", "/api/auth/account", { token: session.idToken });
    expect([bare.status, bare.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    const wrong = await api(t.url, "DELETE", "/api/auth/account", {
      token: session.idToken,
      body: { password: "not the password" },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([403, "PASSWORD_INCORRECT"]);
    expect(await t.db.user.count({ where: { id: uid } })).toBe(1);
    const del = await api(t.url, "DELETE", "/api/auth/account", {
      token: session.idToken,
      body: { password: PASSWORD },
    });
    expect(del.status).toBe(204);

    expect(await t.db.user.count({ where: { id: uid } })).toBe(0);
    expect(await t.db.refreshToken.count({ where: { userId: uid } })).toBe(0);
    expect(await store.stat(`users/${uid}/audio/a.mp3`)).toBeNull();
    expect(await store.stat(`users/other/audio/b.mp3`)).not.toBeNull();
    expect((await api(t.url, "POST", "/api/auth/login", { body: { email, password: PASSWORD } })).status).toBe(401);
    expect(
      (await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: session.refreshToken } })).status,
    ).toBe(401);
  });
});
