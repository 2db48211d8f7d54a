/// <reference lib="dom" />
import { randomUUID } from "node:crypto";
import { jest } from "@jest/globals";
import { createRedis, publishProgress } from "@kikitori/shared/server";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway, tokenLinkFrom } from "../support/gateway.ts";
import { startSmtpCatcher } from "../support/smtp.ts";

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

it("delete account asks for confirmation, then removes the account", async () => {
  const { ctx, page } = await newPage();
  const { email, uid } = await verifiedSession(page);
  const dialogs: string[] = [];
  page.once("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.getByTestId("nav-delete-account").click();
  await page.waitForTimeout(300);
  expect(dialogs).toEqual(["Are you sure you want to delete your account?"]);
  expect(await t.db.user.count({ where: { id: uid } })).toBe(1);

  page.once("dialog", (d) => void d.accept());
  await page.getByTestId("nav-delete-account").click();
  await page.getByTestId("nav-login").waitFor();
  expect(await t.db.user.count({ where: { id: uid } })).toBe(0);

  await login(page, email);
  await page.getByTestId("login-error").waitFor();
  await ctx.close();
});
