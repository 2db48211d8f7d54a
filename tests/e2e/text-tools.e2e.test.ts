/// <reference lib="dom" />
// The summary and title/heading screens in Chromium, against a real gateway and the correction
// worker process (which serves QUEUES.text with the embedded offline engine).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { jest } from "@jest/globals";
import { addMonthsAnchored } from "@kikitori/shared";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { freePort, type ServiceProcess, startService, waitForStatus } from "../infra/service-process.ts";
import { launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

jest.setTimeout(90_000);

const CORPUS = path.resolve(import.meta.dirname, "../../services/text-worker/test/fixtures/text-corpus");
const article = readFileSync(path.join(CORPUS, "en-article-heat.txt"), "utf8");
const minutes = readFileSync(path.join(CORPUS, "en-meeting-product.txt"), "utf8");
const PASSWORD = "a long enough password";

let t: TestGateway;
let worker: ServiceProcess;
let browser: Browser;

beforeAll(async () => {
  t = await startTestGateway({ fixedPort: true });
  const port = await freePort();
  worker = startService("text-worker", {
    ...t.env,
    OPS_HOST: "127.0.0.1",
    OPS_PORT: String(port),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
  });
  await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, worker);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  if (worker) {
    worker.child.kill("SIGTERM");
    await worker.exited;
  }
  await t?.close();
});

async function newPage(): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ locale: "en-US" });
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
  const page = await ctx.newPage();
  return { ctx, page };
}

/** A verified account, created directly. */
async function account(): Promise<{ uid: string; email: string }> {
  const uid = randomUUID();
  const email = `e2e-${uid}@example.com`;
  const now = new Date();
  await t.db.user.create({
    data: {
      id: uid,
      email,
      passwordHash: await hashPassword(PASSWORD),
      emailVerified: true,
      backendRecordedAt: now,
      periodStart: now,
      resetDate: addMonthsAnchored(now, 1),
      anchorDay: now.getUTCDate(),
    },
  });
  return { uid, email };
}

/** A verified account (created directly) logged in through the login screen. */
async function loggedIn(page: Page): Promise<{ uid: string }> {
  const uid = randomUUID();
  const email = `e2e-${uid}@example.com`;
  const now = new Date();
  await t.db.user.create({
    data: {
      id: uid,
      email,
      passwordHash: await hashPassword(PASSWORD),
      emailVerified: true,
      backendRecordedAt: now,
      periodStart: now,
      resetDate: addMonthsAnchored(now, 1),
      anchorDay: now.getUTCDate(),
    },
  });
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  return { uid };
}

/** Holds the generation call for `ms` before letting it through, so the waiting state can be seen. */
async function delayCall(page: Page, urlPart: string, ms: number) {
  await page.route(`**${urlPart}`, async (route) => {
    await new Promise((r) => setTimeout(r, ms));
    await route.continue();
  });
}

describe("/en/summary", () => {
  it("a visitor gets the in-page login dialog; logging in there keeps the text and phrases, and generating works", async () => {
    const { ctx, page } = await newPage();
    const browserDialogs: string[] = [];
    page.on("dialog", (d) => {
      browserDialogs.push(d.message());
      void d.dismiss();
    });
    const { email } = await account();
    await page.goto(`${t.url}/en/summary`);
    await page.getByTestId("summary-text").fill(article);
    await page.getByTestId("summary-length").fill("1000");
    await page.getByTestId("summary-phrase-0").fill("street tree");
    await page.getByTestId("summary-phrase-1").fill("Paris");
    await page.getByTestId("summary-generate").click();
    const dialog = page.getByTestId("login-prompt");
    await dialog.waitFor();
    expect(await dialog.evaluate((d) => (d as HTMLDialogElement).open && d.matches(":modal"))).toBe(true);
    // It offers registering as well as logging in.
    await page.getByTestId("login-prompt-switch").click();
    expect(await dialog.getAttribute("data-mode")).toBe("register");
    await page.getByTestId("login-prompt-switch").click();
    expect(await dialog.getAttribute("data-mode")).toBe("login");
    await page.getByTestId("login-prompt-email").fill(email);
    await page.getByTestId("login-prompt-password").fill(PASSWORD);
    await page.getByTestId("login-prompt-submit").click();
    await dialog.waitFor({ state: "detached" });
    expect(page.url()).toBe(`${t.url}/en/summary`);
    expect(await page.getByTestId("summary-text").inputValue()).toBe(article);
    expect(await page.getByTestId("summary-phrase-1").inputValue()).toBe("Paris");
    await page.getByTestId("summary-generate").click();
    await page.getByTestId("summary-result").waitFor({ timeout: 30_000 });
    expect(browserDialogs).toEqual([]);
    await ctx.close();
  });

  it("a short interview: 100 characters are allowed; a phrase not in the text is named and woven into a sentence", async () => {
    const { ctx, page } = await newPage();
    await loggedIn(page);
    await page.goto(`${t.url}/en/summary`);
    expect(await page.getByTestId("summary-length").getAttribute("min")).toBe("100");
    const short = article.slice(0, 700);
    await page.getByTestId("summary-text").fill(short);
    await page.getByTestId("summary-length").fill("150");
    await page.getByTestId("summary-phrase-0").fill("heat");
    await page.getByTestId("summary-phrase-1").fill("quantum physics");
    await page.getByTestId("summary-generate").click();
    const result = page.getByTestId("summary-result");
    await result.waitFor({ timeout: 30_000 });
    const missing = page.getByTestId("summary-missing");
    expect(await missing.textContent()).toContain("“quantum physics”");
    expect(await missing.textContent()).not.toContain("“heat”");
    const summary = (await result.textContent()) ?? "";
    expect(summary).toContain("The discussion also relates to quantum physics.");
    expect(summary).not.toMatch(/\. quantum physics\.$/);
    // Done: the bar is in the success colour, not red.
    const bar = page.getByTestId("summary-progress");
    expect(await bar.getAttribute("data-tone")).toBe("done");
    expect(await bar.locator(".tt-progress-fill").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
      "rgb(4, 120, 87)",
    );
    // The result came into view.
    await page.waitForFunction(() => {
      const r = document.querySelector('[data-testid="summary-result"]')?.getBoundingClientRect();
      return !!r && r.top < window.innerHeight && r.bottom > 0;
    });
    await ctx.close();
  });

  it("phrase rows: two empty rows to start, add and remove keep at least two; defaults and count", async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${t.url}/en/summary`);
    expect(await page.getByTestId("summary-length").inputValue()).toBe("3002");
    expect(await page.getByTestId("summary-length").getAttribute("min")).toBe("100");
    expect(await page.getByTestId("summary-length").getAttribute("max")).toBe("10000");
    expect(await page.getByTestId("summary-phrase-0").inputValue()).toBe("");
    expect(await page.getByTestId("summary-phrase-1").inputValue()).toBe("");
    expect(await page.getByTestId("summary-phrase-2").count()).toBe(0);
    expect(await page.getByTestId("summary-remove-phrase-0").isDisabled()).toBe(true);
    await page.getByTestId("summary-add-phrase").click();
    await page.getByTestId("summary-phrase-2").fill("third");
    expect(await page.getByTestId("summary-remove-phrase-0").isDisabled()).toBe(false);
    await page.getByTestId("summary-phrase-1").fill("second");
    await page.getByTestId("summary-remove-phrase-1").click();
    expect(await page.getByTestId("summary-phrase-1").inputValue()).toBe("third");
    expect(await page.getByTestId("summary-phrase-2").count()).toBe(0);
    expect(await page.getByTestId("summary-remove-phrase-1").isDisabled()).toBe(true);
    await page.getByTestId("summary-text").fill(article);
    expect(await page.getByTestId("summary-count").textContent()).toBe("3,743 characters");
    // The length follows the text (about a third) until the user types one; then it stays theirs.
    expect(await page.getByTestId("summary-length").inputValue()).toBe("1250");
    await page.getByTestId("summary-text").fill(article.slice(0, 782));
    expect(await page.getByTestId("summary-length").inputValue()).toBe("260");
    await page.getByTestId("summary-length").fill("500");
    await page.getByTestId("summary-text").fill(article);
    expect(await page.getByTestId("summary-length").inputValue()).toBe("500");
    await ctx.close();
  });

  it("validation messages: desired length over the text, fewer than two phrases", async () => {
    const { ctx, page } = await newPage();
    await loggedIn(page);
    await page.goto(`${t.url}/en/summary`);
    await page.getByTestId("summary-text").fill(article.slice(0, 1500));
    await page.getByTestId("summary-length").fill("2000");
    await page.getByTestId("summary-phrase-0").fill("Paris");
    await page.getByTestId("summary-phrase-1").fill("heat");
    await page.getByTestId("summary-generate").click();
    await page.getByTestId("summary-error").filter({ hasText: "equal to or shorter than the original text" }).waitFor();
    await page.getByTestId("summary-length").fill("1000");
    await page.getByTestId("summary-phrase-1").fill("  ");
    await page.getByTestId("summary-generate").click();
    await page.getByTestId("summary-error").filter({ hasText: "at least two required phrases" }).waitFor();
    await ctx.close();
  });

  it("generates: the bar rises while waiting, 100 on success, phrases in the result, copy with the notice", async () => {
    const { ctx, page } = await newPage();
    const { uid } = await loggedIn(page);
    await page.goto(`${t.url}/en/summary`);
    await page.getByTestId("summary-text").fill(article);
    await page.getByTestId("summary-length").fill("1200");
    await page.getByTestId("summary-phrase-0").fill("street tree");
    await page.getByTestId("summary-phrase-1").fill("Paris");
    await delayCall(page, "/api/summary/summarize", 3500);
    await page.getByTestId("summary-generate").click();
    const bar = page.getByTestId("summary-progress");
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="summary-progress"]')?.getAttribute("data-value")) >= 2,
    );
    const midway = Number(await bar.getAttribute("data-value"));
    expect(midway).toBeGreaterThanOrEqual(2);
    expect(midway).toBeLessThanOrEqual(98);
    expect(await page.getByTestId("summary-generate").isDisabled()).toBe(true);

    const result = page.getByTestId("summary-result");
    await result.waitFor({ timeout: 30_000 });
    expect(await bar.getAttribute("data-value")).toBe("100");
    const summary = (await result.textContent()) ?? "";
    expect(summary).toContain("street tree");
    expect(summary).toContain("Paris");
    expect([...summary].length).toBeGreaterThanOrEqual(1080);
    expect([...summary].length).toBeLessThanOrEqual(1320);

    await page.getByTestId("summary-copy").click();
    await page
      .getByTestId("summary-copied")
      .filter({ hasText: "The summary has been copied to the clipboard!" })
      .waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(summary);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: uid } })).summariesUsed).toBe(1);
    await ctx.close();
  });

  it("a used-up quota shows the red alert with the server's message and link", async () => {
    const { ctx, page } = await newPage();
    const { uid } = await loggedIn(page);
    await t.db.user.update({ where: { id: uid }, data: { summariesUsed: 3 } });
    await page.goto(`${t.url}/en/summary`);
    await page.getByTestId("summary-text").fill(article);
    await page.getByTestId("summary-length").fill("1000");
    await page.getByTestId("summary-phrase-0").fill("street tree");
    await page.getByTestId("summary-phrase-1").fill("Paris");
    await page.getByTestId("summary-generate").click();
    const alert = page.getByTestId("summary-error");
    await alert.filter({ hasText: "used up this month's quota" }).waitFor();
    expect(await alert.getAttribute("class")).toContain("alert-error");
    // The link goes to the plan page and is named for it, not "Contact support here".
    const link = alert.getByTestId("error-plan-link");
    expect(await link.getAttribute("href")).toMatch(/\/en\/upgrade-plan$/);
    expect(await link.textContent()).toBe("Upgrade your plan");
    expect(await alert.textContent()).not.toContain("Contact support here");
    expect(await page.getByTestId("summary-result").count()).toBe(0);
    await link.click();
    await page.waitForURL(`${t.url}/en/upgrade-plan`);
    await ctx.close();
  });
});

describe("/en/title-header-generator", () => {
  it("a visitor is asked to log in in the page; Cancel (or Escape) stays on the screen with the text kept", async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${t.url}/en/title-header-generator`);
    await page.getByTestId("titles-text").fill(minutes);
    await page.getByTestId("titles-generate").click();
    await page.getByTestId("login-prompt").waitFor();
    await page.getByTestId("login-prompt-cancel").click();
    await page.getByTestId("login-prompt").waitFor({ state: "detached" });
    // Focus goes back to the button that opened it.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("titles-generate");
    await page.getByTestId("titles-generate").click();
    await page.getByTestId("login-prompt").waitFor();
    await page.keyboard.press("Escape");
    await page.getByTestId("login-prompt").waitFor({ state: "detached" });
    expect(page.url()).toBe(`${t.url}/en/title-header-generator`);
    expect(await page.getByTestId("titles-text").inputValue()).toBe(minutes);
    await ctx.close();
  });

  it("honours the request's topic, writes headline titles, and the jump links carry the heading text", async () => {
    const { ctx, page } = await newPage();
    await loggedIn(page);
    await page.goto(`${t.url}/en/title-header-generator`);
    const bees = [
      "Bees are moving into the city. Urban hives now sit on many roofs in the city centre.",
      "Each hive needs flowers nearby, so the city plants more flowers in parks and on balconies.",
      "Beekeepers say city honey tastes of lime trees. Some hives produce more honey than rural hives.",
      "A warmer climate changes when flowers bloom, and bees have to adapt.",
      "The city hopes urban bees will help gardens and parks. Bees and flowers need each other.",
    ].join("\n");
    await page.getByTestId("titles-text").fill(bees);
    await page.getByTestId("titles-custom").fill("focus on climate");
    await page.getByTestId("titles-generate").click();
    const list = page.getByTestId("titles-list");
    await list.waitFor({ timeout: 30_000 });
    const titles = await list.locator("li").allTextContents();
    expect(titles[0].toLowerCase()).toContain("climate");
    for (const title of titles) {
      expect(title).not.toMatch(/^On \p{L}+$/u);
      expect(title.trim().split(/\s+/u).length).toBeGreaterThanOrEqual(2);
    }
    for (let i = 0; i < 3; i++) {
      const heading = (await page.getByTestId(`titles-heading-${i}`).textContent())?.trim();
      const link = (await page.getByTestId(`titles-heading-link-${i}`).textContent())?.trim();
      expect(link).toBe(heading);
      expect(link).not.toMatch(/^Heading \d/);
    }
    await ctx.close();
  });

  it("a count below 1 is refused with its message", async () => {
    const { ctx, page } = await newPage();
    await loggedIn(page);
    await page.goto(`${t.url}/en/title-header-generator`);
    expect(await page.getByTestId("titles-num-headings").inputValue()).toBe("3");
    expect(await page.getByTestId("titles-num-titles").inputValue()).toBe("3");
    expect(await page.getByTestId("titles-num-titles").getAttribute("min")).toBe("1");
    await page.getByTestId("titles-text").fill(minutes);
    await page.getByTestId("titles-num-titles").fill("0");
    await page.getByTestId("titles-generate").click();
    await page.getByTestId("titles-error").filter({ hasText: "at least 1" }).waitFor();
    await ctx.close();
  });

  it("generates titles and places each heading at the start of its block, with scroll links and copy", async () => {
    const { ctx, page } = await newPage();
    await loggedIn(page);
    await page.setViewportSize({ width: 1200, height: 700 });
    await page.goto(`${t.url}/en/title-header-generator`);
    await page.getByTestId("titles-text").fill(minutes);
    await page.getByTestId("titles-num-headings").fill("4");
    await page.getByTestId("titles-num-titles").fill("5");
    await page.getByTestId("titles-custom").fill("focus on accessibility");
    await delayCall(page, "/api/generate-titles-and-headings", 1500);
    await page.getByTestId("titles-generate").click();
    const button = page.getByTestId("titles-generate");
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="titles-generate"]')?.textContent?.includes("Generating"),
    );
    expect(await button.getAttribute("aria-busy")).toBe("true");

    const list = page.getByTestId("titles-list");
    await list.waitFor({ timeout: 30_000 });
    const titles = await list.locator("li").allTextContents();
    expect(titles).toHaveLength(5);
    expect(new Set(titles).size).toBe(5);
    for (const title of titles) expect(title.trim()).not.toBe("");

    // Heading i sits right before line i × ceil(lines / 4) of the text.
    const lines = minutes.replace(/\s+$/u, "").split("\n");
    const size = Math.ceil(lines.length / 4);
    const output = page.getByTestId("titles-output");
    for (let i = 0; i < 4; i++) {
      const heading = output.getByTestId(`titles-heading-${i}`);
      expect((await heading.textContent())?.trim()).not.toBe("");
      const block = await heading.evaluate((h) => h.nextElementSibling?.textContent ?? "");
      expect(block.split("\n")[0]).toBe(lines[i * size]);
    }

    await page.getByTestId("titles-heading-link-3").click();
    await page.waitForFunction(() => {
      const r = document.querySelector('[data-testid="titles-heading-3"]')?.getBoundingClientRect();
      // Scrolled to its top: a fraction of a pixel above the viewport still counts (whole-pixel scrolling).
      return !!r && r.top > -1 && r.top < window.innerHeight;
    });

    await page.getByTestId("titles-copy").click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(titles[0]);
    expect(copied).toContain(lines[0]);
    await ctx.close();
  });

  it("the Japanese screen is in Japanese", async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${t.url}/ja/title-header-generator`);
    await page.waitForFunction(() => document.documentElement.lang === "ja");
    expect(await page.getByTestId("titles-generate").textContent()).toBe("タイトルと見出しを生成");
    await page.goto(`${t.url}/ja/summary`);
    expect(await page.getByTestId("summary-generate").textContent()).toBe("要約を生成");
    await ctx.close();
  });
});
