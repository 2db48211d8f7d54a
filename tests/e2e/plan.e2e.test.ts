/// <reference lib="dom" />
// The plan screen in Chromium against the real gateway and billing service (local card provider).
import { readFileSync } from "node:fs";
import { jest } from "@jest/globals";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { browserStack } from "../support/browser.ts";
import { api, type TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";

const en = JSON.parse(readFileSync(new URL("../../web/src/locales/en.json", import.meta.url), "utf8"));

jest.setTimeout(120_000);

const PASSWORD = "a long enough password";
const EXPIRY_YEAR = (new Date().getUTCFullYear() + 3) % 100;

const stack = browserStack({ billing: true });
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

async function newUser() {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  return user;
}

/** Logs in through the UI and opens the plan screen. */
async function openPlanScreen(email: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1200, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  await page.goto(`${t.url}/en/upgrade-plan`);
  await page.getByTestId("plan-submit").waitFor();
  return { page, close: () => ctx.close() };
}

async function fillCard(page: Page, number: string) {
  await page.getByTestId("card-number").fill(number);
  await page.getByTestId("card-expiry").fill(`12/${String(EXPIRY_YEAR).padStart(2, "0")}`);
  await page.getByTestId("card-cvc").fill("123");
}

const planOf = (page: Page) => page.getByTestId("plan-current").getAttribute("data-plan");

/** An upgrade: the plan button opens the confirmation step (nothing charged yet), then "Pay". */
async function upgradeAndPay(page: Page) {
  await page.getByTestId("plan-submit").click();
  await page.getByTestId("plan-confirm").waitFor();
  await page.getByTestId("plan-confirm-pay").click();
}

it("free → standard: a declined card shows the decline, the success card upgrades and the bars show the new limits", async () => {
  const user = await newUser();
  const { page, close } = await openPlanScreen(user.email);

  expect(await planOf(page)).toBe("free");
  expect(await page.getByTestId("usage-minutes").textContent()).toContain("/ 30 minutes");
  expect(await page.getByTestId("plan-submit").isDisabled()).toBe(true);
  expect(await page.getByTestId("plan-price-standard").textContent()).toBe("$15");
  expect(await page.getByTestId("plan-price-premium").textContent()).toBe("$30");
  expect(await page.getByTestId("plan-quotas-standard").textContent()).toContain("600 minutes of transcription");

  await page.getByTestId("plan-option-standard").check();
  expect(await page.getByTestId("plan-price-diff").count()).toBe(0);
  expect(await page.getByTestId("plan-submit").isDisabled()).toBe(false);

  // No card at all → "card info could not be retrieved" (messages.cardInfoMissing).
  await page.getByTestId("plan-submit").click();
  expect(await page.getByTestId("plan-error").textContent()).toBe("The card information could not be retrieved.");

  await page.getByTestId("card-hint").waitFor();
  await fillCard(page, "4000 0000 0000 0002");
  await upgradeAndPay(page);
  await page.getByTestId("plan-error").waitFor();
  expect(await page.getByTestId("plan-error").textContent()).toBe(en.errors.PAYMENT_DECLINED);
  expect(await planOf(page)).toBe("free");

  await fillCard(page, "4242 4242 4242 4242");
  expect(await page.getByTestId("card-number").inputValue()).toBe("4242 4242 4242 4242");
  await upgradeAndPay(page);
  await page.getByTestId("plan-message").waitFor({ timeout: 30_000 });
  expect(await page.getByTestId("plan-message").textContent()).toContain("Subscription processed successfully.");

  await page.locator('[data-testid="plan-current"][data-plan="standard"]').waitFor();
  await page.getByTestId("usage-minutes").filter({ hasText: "/ 600 minutes" }).waitFor();
  expect(await page.getByTestId("usage-summaries").textContent()).toContain("/ 100 times");
  expect(await page.getByTestId("plan-submit").isDisabled()).toBe(true);
  expect(await page.getByTestId("plan-payment-method").textContent()).toContain("4242");
  expect(await page.getByTestId("plan-auto-renew").textContent()).toMatch(/renews automatically/);
  await close();
});

it("free → premium with the authentication card: decline fails, approve upgrades", async () => {
  const user = await newUser();
  const { page, close } = await openPlanScreen(user.email);

  await page.getByTestId("plan-option-premium").check();
  await fillCard(page, "4000 0025 0000 3155");
  await upgradeAndPay(page);
  await page.getByTestId("auth-modal").waitFor();
  // The bank's dialog names the plan being bought, not the current one.
  expect(await page.getByTestId("auth-modal").textContent()).toContain("Premium plan");
  expect(await page.getByTestId("plan-processing").count()).toBe(1);
  await page.getByTestId("auth-decline").click();
  await page.getByTestId("plan-error").waitFor();
  // A decline says so and what to do next.
  expect(await page.getByTestId("plan-error").textContent()).toBe(en.plan.auth.declined);
  expect(await page.getByTestId("auth-modal").count()).toBe(0);
  expect(await planOf(page)).toBe("free");

  await fillCard(page, "4000 0025 0000 3155");
  await upgradeAndPay(page);
  await page.getByTestId("auth-modal").waitFor();
  await page.getByTestId("auth-approve").click();
  await page.getByTestId("plan-message").waitFor({ timeout: 30_000 });
  expect(await page.getByTestId("plan-message").textContent()).toContain("Subscription processed successfully.");
  await page.locator('[data-testid="plan-current"][data-plan="premium"]').waitFor();
  await page.getByTestId("usage-minutes").filter({ hasText: "/ 1,800 minutes" }).waitFor();
  await close();
});

it("premium → standard shows the price difference, schedules the switch for the reset date, and can be withdrawn", async () => {
  const user = await newUser();
  const pm = await api(t.url, "POST", "/api/billing/local/payment-methods", {
    token: user.token,
    body: { number: "4242424242424242", expMonth: 12, expYear: 2000 + EXPIRY_YEAR, cvc: "123" },
  });
  expect(pm.status).toBe(200);
  const up = await api(t.url, "POST", "/api/subscriptions/create-or-update-subscription", {
    token: user.token,
    body: { paymentMethodId: pm.body.id, selectedPlan: "premium", lang: "en" },
  });
  expect([up.status, up.body.status]).toEqual([200, "upgraded"]);

  const { page, close } = await openPlanScreen(user.email);
  expect(await planOf(page)).toBe("premium");
  await page.getByTestId("plan-option-standard").check();
  expect(await page.getByTestId("plan-price-diff").textContent()).toContain("−$15 / month");
  expect(await page.getByTestId("plan-effect").textContent()).toMatch(/takes effect on your reset date/);
  // The card on file is used by default: no card form needed.
  expect(await page.getByTestId("card-saved").isChecked()).toBe(true);
  expect(await page.getByTestId("card-number").count()).toBe(0);
  await page.getByTestId("plan-submit").click();
  await page.getByTestId("plan-message").waitFor({ timeout: 30_000 });

  const pending = page.getByTestId("plan-pending");
  await pending.waitFor();
  expect(await pending.getAttribute("data-plan")).toBe("standard");
  const row = await t.db.user.findUniqueOrThrow({ where: { id: user.uid } });
  const resetText = new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" }).format(row.resetDate);
  expect(await pending.textContent()).toBe(`Your plan changes to Standard on ${resetText}.`);
  expect(await planOf(page)).toBe("premium");
  expect(await page.getByTestId("plan-submit").isDisabled()).toBe(true);

  // "Keep my plan" withdraws the scheduled switch.
  await page.getByTestId("plan-keep").click();
  await page.getByTestId("plan-message").filter({ hasText: "cancelled" }).waitFor();
  await pending.waitFor({ state: "detached" });
  expect(await planOf(page)).toBe("premium");
  await close();
});

it("the 3-D Secure dialog shows the amount and keeps the focus inside", async () => {
  const user = await newUser();
  const { page, close } = await openPlanScreen(user.email);
  await page.getByTestId("plan-option-premium").check();
  await fillCard(page, "4000 0025 0000 3155");
  await upgradeAndPay(page);
  const dialog = page.getByTestId("auth-modal");
  await dialog.waitFor();
  expect(await page.getByTestId("auth-amount").textContent()).toMatch(/^Amount: \$\d+(\.\d\d)?$/);
  const inside = () => page.evaluate(() => !!document.activeElement?.closest('[data-testid="auth-modal"]'));
  expect(await inside()).toBe(true);
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Tab");
    expect(await inside()).toBe(true);
  }
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Shift+Tab");
    expect(await inside()).toBe(true);
  }
  await page.getByTestId("auth-approve").click();
  await page.locator('[data-testid="plan-current"][data-plan="premium"]').waitFor({ timeout: 30_000 });
  await close();
});

it("on a phone: the Greek 'keep my plan' button stays in its card, the Tamil usage values do not overflow", async () => {
  const user = await newUser();
  const pm = await api(t.url, "POST", "/api/billing/local/payment-methods", {
    token: user.token,
    body: { number: "4242424242424242", expMonth: 12, expYear: 2000 + EXPIRY_YEAR, cvc: "123" },
  });
  await api(t.url, "POST", "/api/subscriptions/create-or-update-subscription", {
    token: user.token,
    body: { paymentMethodId: pm.body.id, selectedPlan: "premium", lang: "en" },
  });
  const down = await api(t.url, "POST", "/api/subscriptions/create-or-update-subscription", {
    token: user.token,
    body: { paymentMethodId: null, selectedPlan: "standard", lang: "en" },
  });
  expect(down.status).toBe(200);

  const ctx = await browser.newContext({ locale: "el-GR", viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/el/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/el/transcription`);
  const inCard = async (testId: string, container: string) =>
    page.getByTestId(testId).evaluate((el, sel) => {
      const box = (el.closest(sel) as HTMLElement).getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && el.scrollWidth <= el.clientWidth + 1;
    }, container);

  await page.goto(`${t.url}/el/upgrade-plan`);
  await page.getByTestId("plan-keep").waitFor();
  expect(await inCard("plan-keep", ".plan-notice")).toBe(true);
  expect(await inCard("plan-keep", ".card")).toBe(true);

  await page.goto(`${t.url}/ta/upgrade-plan`);
  await page.waitForFunction(() => document.documentElement.lang === "ta");
  for (const id of ["usage-minutes", "usage-summaries", "usage-titles"]) {
    await page.getByTestId(id).waitFor();
    const fits = await page.getByTestId(id).evaluate((usage) => {
      const box = usage.getBoundingClientRect();
      return Array.from(usage.querySelectorAll<HTMLElement>(".usage-label, .usage-value")).every((el) => {
        const r = el.getBoundingClientRect();
        return r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
      });
    });
    expect([id, fits]).toEqual([id, true]);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await ctx.close();
});

/** Buys `plan` through the API with a local test card, as the card form would; the change's answer. */
async function subscribeByApi(token: string, number: string, selectedPlan: "standard" | "premium") {
  const pm = await api(t.url, "POST", "/api/billing/local/payment-methods", {
    token,
    body: { number, expMonth: 12, expYear: 2000 + EXPIRY_YEAR, cvc: "123" },
  });
  return api(t.url, "POST", "/api/subscriptions/create-or-update-subscription", {
    token,
    body: { paymentMethodId: pm.body.id, selectedPlan, lang: "en" },
  });
}

/** A user on Standard, paid with the Visa 4242 through the API. */
async function standardUser() {
  const user = await newUser();
  const up = await subscribeByApi(user.token, "4242424242424242", "standard");
  expect([up.status, up.body.status]).toEqual([200, "upgraded"]);
  return user;
}

it("standard → premium: nothing is charged before the confirmation with the amount and the card; another card can be used", async () => {
  const user = await standardUser();
  const paymentsOf = () => t.db.payment.count({ where: { userId: user.uid } });
  const before = await paymentsOf();
  const { page, close } = await openPlanScreen(user.email);

  await page.getByTestId("plan-option-premium").check();
  expect(await page.getByTestId("card-saved").isChecked()).toBe(true);
  await page.getByTestId("plan-submit").click();
  const confirm = page.getByTestId("plan-confirm");
  await confirm.waitFor();
  // Focus moves to the step, which shows the amount due today and the card that would be charged.
  expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("plan-confirm");
  const quote = await api(t.url, "GET", "/api/subscriptions/quote?plan=premium&lang=en", { token: user.token });
  const amount = new Intl.NumberFormat("en", { style: "currency", currency: "USD" })
    .format(quote.body.amountNow)
    .replace(/\.00$/, "");
  expect(await page.getByTestId("plan-confirm-amount").textContent()).toContain(amount);
  expect(await page.getByTestId("plan-confirm-card").textContent()).toBe("Visa ending in 4242");
  expect(await confirm.textContent()).toContain("Standard to Premium");
  expect(await confirm.textContent()).not.toMatch(/plan\.confirm\./);
  expect(await page.getByTestId("plan-confirm-then").textContent()).toContain("$30 / month");
  expect(await page.getByTestId("plan-confirm-pay").textContent()).toContain(amount);
  expect(await paymentsOf()).toBe(before);

  // "Back" leaves everything as it was; "Use another card" opens the card form.
  await page.getByTestId("plan-confirm-back").click();
  await confirm.waitFor({ state: "detached" });
  expect(await paymentsOf()).toBe(before);
  await page.getByTestId("plan-submit").click();
  await confirm.waitFor();
  await page.getByTestId("plan-confirm-other-card").click();
  await page.getByTestId("card-number").waitFor();
  expect(await page.getByTestId("card-new").isChecked()).toBe(true);
  await fillCard(page, "5555 5555 5555 4444");
  await page.getByTestId("plan-submit").click();
  await confirm.waitFor();
  expect(await page.getByTestId("plan-confirm-card").textContent()).toBe("Mastercard ending in 4444");
  expect(await paymentsOf()).toBe(before);
  await page.getByTestId("plan-confirm-pay").click();
  await page.getByTestId("plan-message").waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="plan-current"][data-plan="premium"]').waitFor();
  const paid = await t.db.payment.findFirstOrThrow({ where: { userId: user.uid }, orderBy: { createdAt: "desc" } });
  expect([paid.status, paid.cardLast4, paid.amount / 100]).toEqual(["succeeded", "4444", quote.body.amountNow]);
  await close();
});

it("a payment left waiting for the bank: the resumed dialog names the plan being bought, and a decline says what to do", async () => {
  const user = await newUser();
  const up = await subscribeByApi(user.token, "4000002500003155", "premium");
  expect(up.body.clientSecret).toEqual(expect.any(String));

  const { page, close } = await openPlanScreen(user.email);
  expect(await planOf(page)).toBe("free");
  await page.getByTestId("plan-resume-payment").click();
  const dialog = page.getByTestId("auth-modal");
  await dialog.waitFor();
  const text = await dialog.textContent();
  expect(text).toContain("Premium plan");
  expect(text).not.toContain("Free plan");
  await page.getByTestId("auth-decline").click();
  await page.getByTestId("plan-error").waitFor();
  expect(await page.getByTestId("plan-error").textContent()).toBe(en.plan.auth.declined);
  expect(await planOf(page)).toBe("free");
  await close();
});

it("the account page changes the card on file and downloads a PDF receipt", async () => {
  const user = await standardUser();
  const { page, close } = await openPlanScreen(user.email);
  await page.goto(`${t.url}/en/account`);
  await page.getByTestId("account-card-current").filter({ hasText: "4242" }).waitFor();
  await page.getByTestId("account-card-change").click();
  await fillCard(page, "5555 5555 5555 4444");
  await page.getByTestId("account-card-save").click();
  await page.getByTestId("account-card-outcome").waitFor();
  expect(await page.getByTestId("account-card-outcome").textContent()).toBe(
    en.account.card.changed.replace("{{brand}}", "Mastercard").replace("{{last4}}", "4444"),
  );
  await page.getByTestId("account-card-current").filter({ hasText: "4444" }).waitFor();
  const sub = await t.db.subscription.findUniqueOrThrow({ where: { userId: user.uid } });
  expect(sub.cardLast4).toBe("4444");

  const download = page.waitForEvent("download");
  await page.getByTestId("account-receipt").first().click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^receipt-KIK-\d{8}-[0-9A-F]{8}\.pdf$/);
  const path = await file.path();
  expect(readFileSync(path).subarray(0, 5).toString("latin1")).toBe("%PDF-");
  await close();
});
