/// <reference lib="dom" />
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { jest } from "@jest/globals";
import { createRedis, publishProgress } from "@kikitori/shared/server";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway, tokenLinkFrom } from "../support/gateway.ts";
import { decodeQuotedPrintable, startSmtpCatcher } from "../support/smtp.ts";

jest.setTimeout(60_000);

let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
let t: TestGateway;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await startTestGateway({ smtpUrl: smtp.url, fixedPort: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

const PASSWORD = "a long enough password";
let n = 0;
const freshEmail = () => `e2e${Date.now()}-${n++}@example.com`;

async function newPage(locale = "en-US"): Promise<{ ctx: BrowserContext; page: Page; warnings: string[] }> {
  const ctx = await browser.newContext({ locale });
  const page = await ctx.newPage();
  const warnings: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "warning" || m.type() === "error") warnings.push(m.text());
  });
  return { ctx, page, warnings };
}

async function registerInBrowser(page: Page, email: string, lang = "en") {
  await page.goto(`${t.url}/${lang}/register`);
  await page.getByTestId("register-email").fill(email);
  await page.getByTestId("register-password").fill(PASSWORD);
  await page.getByTestId("register-submit").click();
  await page.getByTestId("register-success").waitFor();
}

async function login(page: Page, email: string, lang = "en") {
  await page.goto(`${t.url}/${lang}/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
}

it("register → open the link from the captured mail → login → lands on /en/transcription", async () => {
  const { ctx, page } = await newPage();
  const email = freshEmail();
  await registerInBrowser(page, email);
  // about 3 s later the register screen moves on to login
  await page.waitForURL(`${t.url}/en/login`, { timeout: 6000 });

  const mail = await smtp.waitFor((m) => m.to.includes(email));
  const { link } = tokenLinkFrom(mail.raw);
  expect(link.startsWith(`${t.url}/en/verify-email?token=`)).toBe(true);
  await page.goto(link);
  await page
    .getByTestId("verify-status")
    .filter({ hasText: /verified|confirmed/i })
    .waitFor();

  await login(page, email);
  await page.waitForURL(`${t.url}/en/transcription`);
  await page.getByTestId("nav-logout").waitFor();
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "null"));
  expect(stored.user.email).toBe(email);

  await page.getByTestId("nav-logout").click();
  await page.getByTestId("nav-login").waitFor();
  await ctx.close();
});

it("an unverified login shows the verification message", async () => {
  const { ctx, page } = await newPage();
  const email = freshEmail();
  await registerInBrowser(page, email);
  await login(page, email);
  const err = page.getByTestId("login-error");
  await err.waitFor();
  expect(await err.textContent()).toMatch(/verif/i);
  expect(page.url()).toBe(`${t.url}/en/login`);
  await ctx.close();
});

it("a wrong password shows the login-failed message", async () => {
  const { ctx, page } = await newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(freshEmail());
  await page.getByTestId("login-password").fill("wrong password");
  await page.getByTestId("login-submit").click();
  await page
    .getByTestId("login-error")
    .filter({ hasText: "Login failed. Please check your email and password." })
    .waitFor();
  await ctx.close();
});

it("/ja switches the texts and the html lang", async () => {
  const { ctx, page } = await newPage();
  await page.goto(`${t.url}/en/login`);
  const en = await page.getByTestId("page-title").textContent();
  await page.goto(`${t.url}/ja/login`);
  await page.waitForFunction(() => document.documentElement.lang === "ja");
  const ja = await page.getByTestId("page-title").textContent();
  expect(ja).not.toBe(en);
  expect(ja).toMatch(/[\u3040-\u30ff\u4e00-\u9faf]/);
  expect(await page.getByTestId("login-submit").textContent()).toMatch(/[\u3040-\u30ff\u4e00-\u9faf]/);
  await ctx.close();
});

it("redirects: /xx/summary → /en/summary, / → /en/transcription, /summary → /en/summary", async () => {
  const { ctx, page } = await newPage();
  await page.goto(`${t.url}/xx/summary`);
  await page.waitForURL(`${t.url}/en/summary`);
  await page.goto(`${t.url}/`);
  await page.waitForURL(`${t.url}/en/transcription`);
  await page.goto(`${t.url}/summary`);
  await page.waitForURL(`${t.url}/en/summary`);
  await page.goto(`${t.url}/de`);
  await page.waitForURL(`${t.url}/de/transcription`);
  await ctx.close();
});

it("the plan screen redirects visitors to login", async () => {
  const { ctx, page } = await newPage();
  await page.goto(`${t.url}/en/upgrade-plan`);
  await page.waitForURL(`${t.url}/en/login`);
  await ctx.close();
});

it("password reset by e-mail link, then login with the new password", async () => {
  const { ctx, page } = await newPage();
  const email = freshEmail();
  await registerInBrowser(page, email);
  const { link } = tokenLinkFrom((await smtp.waitFor((m) => m.to.includes(email))).raw);
  await page.goto(link);
  await page
    .getByTestId("verify-status")
    .filter({ hasText: /verified|confirmed/i })
    .waitFor();

  await page.goto(`${t.url}/en/password-reset`);
  await page.getByTestId("reset-email").fill(email);
  await page.getByTestId("reset-submit").click();
  await page.getByTestId("reset-message").waitFor();
  const resetMail = await smtp.waitFor((m) => m.to.includes(email) && m.raw.includes("password-reset/confirm"));
  await page.goto(tokenLinkFrom(resetMail.raw).link);
  const newPassword = "another long password";
  await page.getByTestId("reset-confirm-password").fill(newPassword);
  await page.getByTestId("reset-confirm-password2").fill(newPassword);
  await page.getByTestId("reset-confirm-submit").click();
  await page.getByTestId("reset-confirm-message").waitFor();

  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(newPassword);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  await ctx.close();
});

async function verifiedSession(page: Page): Promise<{ email: string; uid: string }> {
  const email = freshEmail();
  await registerInBrowser(page, email);
  const { link } = tokenLinkFrom((await smtp.waitFor((m) => m.to.includes(email))).raw);
  await page.goto(link);
  await page
    .getByTestId("verify-status")
    .filter({ hasText: /verified|confirmed/i })
    .waitFor();
  await login(page, email);
  await page.waitForURL(`${t.url}/en/transcription`);
  const uid = await page.evaluate(() => JSON.parse(localStorage.getItem("user")!).user.uid as string);
  return { email, uid };
}

it("a worker-side publish reaches the right browser socket only", async () => {
  const a = await newPage();
  const b = await newPage();
  const alice = await verifiedSession(a.page);
  await verifiedSession(b.page);

  // Each browser opens the product's socket with its own ID token and records what arrives.
  const openSocket = (page: Page) =>
    page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const { idToken } = JSON.parse(localStorage.getItem("user")!);
          const ws = new WebSocket(`${location.origin.replace("http", "ws")}/ws`);
          (window as any).__got = [];
          ws.onopen = () => ws.send(JSON.stringify({ type: "auth", token: idToken }));
          ws.onmessage = (e) => {
            const m = JSON.parse(e.data);
            if (m.type === "ready") resolve();
            else (window as any).__got.push(m);
          };
          ws.onclose = (e) => reject(new Error(`closed ${e.code}`));
        }),
    );
  await openSocket(a.page);
  await openSocket(b.page);

  const worker = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
  const jobId = randomUUID();
  await publishProgress(worker, t.prefix, {
    userId: alice.uid,
    event: { jobId, status: "Transcription started", transcriptionProgress: 5 },
  });
  worker.disconnect();
  await a.page.waitForFunction(() => (window as any).__got.length === 1);
  await new Promise((r) => setTimeout(r, 300));
  expect(await a.page.evaluate(() => (window as any).__got)).toEqual([
    { jobId, status: "Transcription started", transcriptionProgress: 5 },
  ]);
  expect(await b.page.evaluate(() => (window as any).__got)).toEqual([]);
  await a.ctx.close();
  await b.ctx.close();
});

/** A link of the given page out of a raw mail (the e-mail change link carries a JWT and a second parameter). */
function pageLinkFrom(raw: string, page: string): string {
  const decoded = decodeQuotedPrintable(raw);
  const m = new RegExp(`(https?://[^\\s"<>]+/${page}\\?token=[^\\s"<>]+)`).exec(decoded);
  if (!m) throw new Error(`no ${page} link in mail`);
  return m[1].replace(/&amp;/g, "&");
}

it("the account page: shows the logged-in e-mail, changes the password, and the top bar has no delete button", async () => {
  const { ctx, page } = await newPage();
  const { email } = await verifiedSession(page);
  const nav = page.getByTestId("nav-account");
  expect(await nav.textContent()).toContain(email);
  expect(await page.getByTestId("nav-delete-account").count()).toBe(0);
  await nav.click();
  await page.waitForURL(`${t.url}/en/account`);
  await page.getByTestId("account-email").filter({ hasText: email }).waitFor();
  expect(await page.getByTestId("account-plan").getAttribute("data-plan")).toBe("free");
  await page.getByTestId("account-billing-empty").waitFor();

  // A wrong current password is named as such; the right one changes it.
  await page.getByTestId("account-current-password").fill("not my password");
  await page.getByTestId("account-new-password").fill("a brand new password");
  await page.getByTestId("account-password-submit").click();
  await page.getByTestId("account-password-message").filter({ hasText: "The password is not correct." }).waitFor();
  await page.getByTestId("account-current-password").fill(PASSWORD);
  await page.getByTestId("account-password-submit").click();
  await page.getByTestId("account-password-message").filter({ hasText: "Your password has been changed" }).waitFor();
  // Still logged in here (a fresh session), and the new password is the one that works.
  await page.reload();
  await page.getByTestId("account-email").waitFor();
  await page.getByTestId("nav-logout").click();
  await page.getByTestId("nav-login").waitFor();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill("a brand new password");
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  await ctx.close();
});

it("the account page changes the e-mail only after the new address confirms it", async () => {
  const { ctx, page } = await newPage();
  const { email, uid } = await verifiedSession(page);
  const next = freshEmail();
  await page.goto(`${t.url}/en/account`);
  await page.getByTestId("account-new-email").fill("not-an-email");
  await page.getByTestId("account-email-submit").click();
  await page.getByTestId("account-new-email-error").waitFor();
  await page.getByTestId("account-new-email").fill(next);
  await page.getByTestId("account-email-password").fill(PASSWORD);
  await page.getByTestId("account-email-submit").click();
  await page.getByTestId("account-email-message").filter({ hasText: next }).waitFor();
  // Nothing changes before the link is used.
  expect((await t.db.user.findUniqueOrThrow({ where: { id: uid } })).email).toBe(email);

  const mail = await smtp.waitFor((m) => m.to.includes(next));
  const link = pageLinkFrom(mail.raw, "en/verify-email");
  expect(link).toContain("kind=email-change");
  await page.goto(link);
  await page.locator('[data-testid="verify-status"][data-status="success"]').filter({ hasText: next }).waitFor();
  expect((await t.db.user.findUniqueOrThrow({ where: { id: uid } })).email).toBe(next);
  // Every login ended: this browser is logged out and logs in with the new address.
  await page.getByTestId("nav-login").waitFor();
  // The link a second time says it is done, not an error.
  await page.goto(link);
  await page.locator('[data-testid="verify-status"][data-status="already"]').waitFor();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(next);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  await ctx.close();
});

it("the account page lists payments and downloads the user's data", async () => {
  const { ctx, page } = await newPage();
  const { email, uid } = await verifiedSession(page);
  const now = new Date();
  await t.db.payment.create({
    data: {
      id: randomUUID(),
      userId: uid,
      provider: "local",
      kind: "upgrade",
      status: "succeeded",
      appliedAt: now,
      fromPlan: "free",
      plan: "standard",
      amount: 1500,
      currency: "USD",
      periodStart: now,
      periodEnd: new Date(now.getTime() + 30 * 86_400_000),
      attemptKey: `upgrade:${uid}`,
      idempotencyKey: randomUUID(),
      cardBrand: "visa",
      cardLast4: "4242",
    },
  });
  await page.goto(`${t.url}/en/account`);
  const row = page.getByTestId("account-payment");
  await row.waitFor();
  expect(await row.textContent()).toMatch(/Upgrade to Standard.*4242.*\$15.*Paid/);
  // The receipt is the billing service's PDF, which this stack does not run: its download is tested in
  // plan.e2e (with billing) and its content in services/billing/test/plan-confirmation.
  expect(await page.getByTestId("account-receipt").count()).toBe(1);

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("account-download").click()]);
  expect(download.suggestedFilename()).toMatch(/^kikitori-data-\d{4}-\d{2}-\d{2}\.json$/);
  const file = await download.path();
  const data = JSON.parse(readFileSync(file, "utf8"));
  expect(data.account.email).toBe(email);
  expect(data.payments).toHaveLength(1);
  expect(JSON.stringify(data)).not.toContain("passwordHash");
  await ctx.close();
});

it("deleting the account: on the account page, says what happens to the plan, asks for the password, confirms by e-mail", async () => {
  const { ctx, page } = await newPage();
  const { email, uid } = await verifiedSession(page);
  await t.db.user.update({ where: { id: uid }, data: { plan: "premium" } });
  await page.goto(`${t.url}/en/account`);
  await page.getByTestId("account-delete-plan").filter({ hasText: "Premium plan ends at once" }).waitFor();
  // The data download is offered right there.
  expect(await page.getByTestId("account-delete-download").isVisible()).toBe(true);

  await page.getByTestId("account-delete-password").fill("wrong password");
  await page.getByTestId("account-delete-submit").click();
  await page.getByTestId("account-delete-message").filter({ hasText: "The password is not correct." }).waitFor();
  expect(await t.db.user.count({ where: { id: uid } })).toBe(1);

  await page.getByTestId("account-delete-password").fill(PASSWORD);
  await page.getByTestId("account-delete-submit").click();
  await page.waitForURL(`${t.url}/en/login`);
  await page.getByTestId("login-account-deleted").filter({ hasText: email }).waitFor();
  expect(await t.db.user.count({ where: { id: uid } })).toBe(0);
  const mail = await smtp.waitFor((m) => m.to.includes(email) && m.raw.includes("has been deleted"));
  expect(mail.raw).toContain("Your Kikitori account has been deleted");

  await login(page, email);
  await page.getByTestId("login-error").waitFor();
  await ctx.close();
});

it("register with a malformed e-mail says what is wrong with the field", async () => {
  const { ctx, page } = await newPage();
  await page.goto(`${t.url}/en/register`);
  await page.getByTestId("register-email").fill("not-an-email");
  await page.getByTestId("register-password").fill(PASSWORD);
  await page.getByTestId("register-submit").click();
  const fieldError = page.getByTestId("register-email-error");
  await fieldError.waitFor();
  expect(await fieldError.textContent()).toContain("not a valid e-mail address");
  expect(await page.getByTestId("register-email").getAttribute("aria-invalid")).toBe("true");
  expect(await page.getByTestId("register-email").getAttribute("aria-describedby")).toBe("register-email-error");
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("register-email");
  expect(await page.getByText("Registration failed").count()).toBe(0);
  await ctx.close();
});

it("a verification link used twice says the address is verified and offers login", async () => {
  const { ctx, page } = await newPage();
  const email = freshEmail();
  await registerInBrowser(page, email);
  const { link } = tokenLinkFrom((await smtp.waitFor((m) => m.to.includes(email))).raw);
  await page.goto(link);
  await page.locator('[data-testid="verify-status"][data-status="success"]').waitFor();
  const second = await ctx.newPage();
  await second.goto(link);
  const status = second.locator('[data-testid="verify-status"][data-status="already"]');
  await status.waitFor();
  expect(await status.textContent()).toBe("This address is already verified. You can log in.");
  expect(await status.getAttribute("class")).not.toContain("alert-error");
  await second.getByRole("link", { name: "Go to login" }).click();
  await second.waitForURL(`${t.url}/en/login`);
  await ctx.close();
});

it("a used reset link says so before showing any form", async () => {
  const { ctx, page } = await newPage();
  const email = freshEmail();
  await registerInBrowser(page, email);
  await smtp.waitFor((m) => m.to.includes(email));
  await page.goto(`${t.url}/en/password-reset`);
  await page.getByTestId("reset-email").fill(email);
  await page.getByTestId("reset-submit").click();
  const resetMail = await smtp.waitFor((m) => m.to.includes(email) && m.raw.includes("password-reset/confirm"));
  const { link, token } = tokenLinkFrom(resetMail.raw);
  // A usable link shows the form.
  await page.goto(link);
  await page.getByTestId("reset-confirm-password").waitFor();
  // Used once (here through the API), the same link says so at once, with no form.
  const used = await fetch(`${t.url}/api/auth/password-reset/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token, password: "another long password" }),
  });
  expect(used.status).toBe(204);
  await page.goto(link);
  await page.getByTestId("reset-confirm-message").filter({ hasText: "already been used" }).waitFor();
  expect(await page.getByTestId("reset-confirm-password").count()).toBe(0);
  await page.getByTestId("reset-confirm-request-new").click();
  await page.waitForURL(`${t.url}/en/password-reset`);
  await ctx.close();
});

it("login: Tab goes e-mail → password → Forgot your password?", async () => {
  const { ctx, page } = await newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").focus();
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("login-password");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Forgot your password?");
  await ctx.close();
});
