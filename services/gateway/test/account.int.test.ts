// The account page's calls against a real gateway and database.

import { api, startTestGateway, type TestGateway, tokenLinkFrom } from "../../../tests/support/gateway.ts";
import { decodeQuotedPrintable, startSmtpCatcher } from "../../../tests/support/smtp.ts";

let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
let t: TestGateway;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await startTestGateway({ smtpUrl: smtp.url, fixedPort: true });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

let n = 0;
const freshEmail = () => `acct${Date.now()}-${n++}@example.com`;
const PASSWORD = "correct horse battery";

async function session(email = freshEmail()) {
  const reg = await api(t.url, "POST", "/api/auth/register", { body: { email, password: PASSWORD, language: "en" } });
  const { token } = tokenLinkFrom((await smtp.waitFor((m) => m.to.includes(email))).raw);
  await api(t.url, "POST", "/api/auth/verify-email", { body: { token } });
  const login = await api(t.url, "POST", "/api/auth/login", { body: { email, password: PASSWORD } });
  expect(reg.status).toBe(202);
  return { email, uid: login.body.user.uid as string, idToken: login.body.idToken as string };
}

it("GET /account names the logged-in account", async () => {
  const s = await session();
  const r = await api(t.url, "GET", "/api/auth/account", { token: s.idToken });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ uid: s.uid, email: s.email, emailVerified: true, plan: "free", pendingPlan: null });
  expect((await api(t.url, "GET", "/api/auth/account")).status).toBe(401);
});

it("changing the password needs the current one, ends other logins and hands out a new session", async () => {
  const s = await session();
  const other = await api(t.url, "POST", "/api/auth/login", { body: { email: s.email, password: PASSWORD } });
  const wrong = await api(t.url, "POST", "/api/auth/account/password", {
    token: s.idToken,
    body: { currentPassword: "nope", newPassword: "a new long password" },
  });
  expect([wrong.status, wrong.body.error.code]).toEqual([403, "PASSWORD_INCORRECT"]);
  const ok = await api(t.url, "POST", "/api/auth/account/password", {
    token: s.idToken,
    body: { currentPassword: PASSWORD, newPassword: "a new long password" },
  });
  expect(ok.status).toBe(200);
  expect(ok.body.user.email).toBe(s.email);
  const refreshOld = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: other.body.refreshToken } });
  expect(refreshOld.status).toBe(401);
  const refreshNew = await api(t.url, "POST", "/api/auth/refresh", { body: { refreshToken: ok.body.refreshToken } });
  expect(refreshNew.status).toBe(200);
  const login = await api(t.url, "POST", "/api/auth/login", {
    body: { email: s.email, password: "a new long password" },
  });
  expect(login.status).toBe(200);
});

it("changing the e-mail: a link to the new address, nothing changes until it is used, then it is used up", async () => {
  const s = await session();
  const next = freshEmail();
  const taken = await session();
  const dup = await api(t.url, "POST", "/api/auth/account/email", {
    token: s.idToken,
    body: { password: PASSWORD, newEmail: taken.email, language: "en" },
  });
  // A taken address answers like a free one; its owner is told by e-mail, and nothing changes.
  expect([dup.status, dup.body]).toEqual([202, { pendingEmail: taken.email }]);
  const notice = decodeQuotedPrintable(
    (await smtp.waitFor((m) => m.to.includes(taken.email) && /tried to use your address/.test(m.raw))).raw,
  );
  expect(notice).not.toContain("kind=email-change");
  expect((await t.db.user.findUniqueOrThrow({ where: { id: s.uid } })).email).toBe(s.email);
  const req = await api(t.url, "POST", "/api/auth/account/email", {
    token: s.idToken,
    body: { password: PASSWORD, newEmail: next, language: "en" },
  });
  expect([req.status, req.body]).toEqual([202, { pendingEmail: next }]);
  expect((await t.db.user.findUniqueOrThrow({ where: { id: s.uid } })).email).toBe(s.email);

  const raw = decodeQuotedPrintable((await smtp.waitFor((m) => m.to.includes(next))).raw);
  const token = decodeURIComponent(/verify-email\?token=([^&\s"<>]+)&(?:amp;)?kind=email-change/.exec(raw)![1]);
  // Not an ID token, though signed with the same secret.
  expect((await api(t.url, "GET", "/api/auth/account", { token })).status).toBe(401);
  const confirm = await api(t.url, "POST", "/api/auth/account/email/confirm", { body: { token } });
  expect([confirm.status, confirm.body]).toEqual([200, { email: next }]);
  expect((await t.db.user.findUniqueOrThrow({ where: { id: s.uid } })).email).toBe(next);
  const again = await api(t.url, "POST", "/api/auth/account/email/confirm", { body: { token } });
  expect(again.body.error.code).toBe("TOKEN_USED");
  const bad = await api(t.url, "POST", "/api/auth/account/email/confirm", {
    body: { token: `${token.slice(0, -4)}AAAA` },
  });
  expect(bad.body.error.code).toBe("INVALID_TOKEN");
  expect((await api(t.url, "POST", "/api/auth/login", { body: { email: next, password: PASSWORD } })).status).toBe(200);
});

it("the reset-link check says whether a link can still be used, without using it", async () => {
  const s = await session();
  await api(t.url, "POST", "/api/auth/password-reset", { body: { email: s.email, language: "en" } });
  const { token } = tokenLinkFrom(
    (await smtp.waitFor((m) => m.to.includes(s.email) && m.raw.includes("password-reset/confirm"))).raw,
  );
  expect((await api(t.url, "POST", "/api/auth/password-reset/check", { body: { token } })).body).toEqual({
    valid: true,
  });
  expect((await api(t.url, "POST", "/api/auth/password-reset/check", { body: { token } })).status).toBe(200);
  await api(t.url, "POST", "/api/auth/password-reset/confirm", { body: { token, password: "another long one" } });
  const used = await api(t.url, "POST", "/api/auth/password-reset/check", { body: { token } });
  expect([used.status, used.body.error.code]).toEqual([400, "TOKEN_USED"]);
  const unknown = await api(t.url, "POST", "/api/auth/password-reset/check", { body: { token: "x".repeat(43) } });
  expect(unknown.body.error.code).toBe("INVALID_TOKEN");
});

it("export and payments: the user's own data, no secrets", async () => {
  const s = await session();
  const exp = await api(t.url, "GET", "/api/auth/account/export", { token: s.idToken });
  expect(exp.status).toBe(200);
  expect(exp.headers.get("content-disposition")).toMatch(/attachment; filename="kikitori-data-/);
  expect(exp.body.account.email).toBe(s.email);
  expect(JSON.stringify(exp.body)).not.toMatch(/passwordHash|argon2/);
  const pay = await api(t.url, "GET", "/api/auth/account/payments", { token: s.idToken });
  expect(pay.body).toEqual({ payments: [] });
});

it("deleting with the password: wrong password refused; then deleted, with a confirmation e-mail", async () => {
  const s = await session();
  const wrong = await api(t.url, "POST", "/api/auth/account/delete", { token: s.idToken, body: { password: "nope" } });
  expect([wrong.status, wrong.body.error.code]).toEqual([403, "PASSWORD_INCORRECT"]);
  expect(await t.db.user.count({ where: { id: s.uid } })).toBe(1);
  const del = await api(t.url, "POST", "/api/auth/account/delete", { token: s.idToken, body: { password: PASSWORD } });
  expect(del.status).toBe(204);
  expect(await t.db.user.count({ where: { id: s.uid } })).toBe(0);
  const mail = await smtp.waitFor((m) => m.to.includes(s.email) && m.raw.includes("has been deleted"));
  expect(mail.raw).toContain("Subject: Your Kikitori account has been deleted");
});
