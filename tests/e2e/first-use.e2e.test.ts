/// <reference lib="dom" />
// Issue 16 "First use without friction", in Chromium against a real gateway: the transcription
// screen's progress colours, a job followed from another tab, the drop zone's size error, the default
// file type, the transcript's own direction, the in-page login dialog that keeps the file and form,
// and the layout and keyboard points (focus ring, mobile menu, tabs, back-to-top button). Jobs are rows
// in the database and their progress is published on Redis, as a worker would.
import { randomUUID } from "node:crypto";
import path from "node:path";
import { jest } from "@jest/globals";
import type { ProgressEvent } from "@kikitori/shared";
import { createRedis, publishProgress } from "@kikitori/shared/server";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";

jest.setTimeout(90_000);

const PASSWORD = "a long enough password";
const AUDIO = path.resolve(import.meta.dirname, "../fixtures/audio/interview-en.mp3");
const DESKTOP = { width: 1280, height: 800 };
const MOBILE = { width: 390, height: 844 };
/** The colours of styles.css: accent (running), success (done), danger (failed). */
const ACCENT = "rgb(79, 70, 229)";
const SUCCESS = "rgb(4, 120, 87)";
const DANGER = "rgb(220, 38, 38)";

let t: TestGateway;
let browser: Browser;
let redis: ReturnType<typeof createRedis>;

beforeAll(async () => {
  t = await startTestGateway({ fixedPort: true });
  redis = createRedis(t.env.REDIS_URL, "producer");
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  redis?.disconnect();
  await t?.close();
});

async function account(over: { secondsUsed?: number } = {}) {
  const user = await createUser(t, over);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  return user;
}

async function newPage(
  opts: { locale?: string; viewport?: { width: number; height: number } } = {},
): Promise<{ ctx: BrowserContext; page: Page; dialogs: string[] }> {
  const ctx = await browser.newContext({ locale: opts.locale ?? "en-US", viewport: opts.viewport ?? DESKTOP });
  const page = await ctx.newPage();
  // No browser dialog (alert, confirm) may open anywhere in these flows.
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { ctx, page, dialogs };
}

async function logIn(page: Page, email: string, lang = "en") {
  await page.goto(`${t.url}/${lang}/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/${lang}/transcription`);
}

/** A job row as the gateway would have written it after an upload. */
async function insertJob(
  uid: string,
  over: Partial<{
    status: "queued" | "transcribing" | "correcting" | "completed" | "failed";
    transcriptionProgress: number;
    correctionProgress: number;
    transcription: string | null;
    rewrittenText: string | null;
    errorCode: string | null;
    errorMessage: string | null;
    originalName: string;
    createdAt: Date;
  }> = {},
) {
  const jobId = randomUUID();
  await t.db.transcriptionJob.create({
    data: {
      id: jobId,
      userId: uid,
      correlationId: "c",
      audioKey: `users/${uid}/audio/${jobId}.mp3`,
      audioMime: "audio/mpeg",
      audioFormat: "mp3",
      audioBytes: 100,
      durationSeconds: 60,
      originalName: over.originalName ?? `${jobId.slice(0, 8)}.mp3`,
      model: "general",
      language: "en",
      audioExpiresAt: new Date(Date.now() + 86_400_000),
      status: over.status ?? "transcribing",
      transcriptionProgress: over.transcriptionProgress ?? 0,
      correctionProgress: over.correctionProgress ?? 0,
      transcription: over.transcription ?? null,
      rewrittenText: over.rewrittenText ?? null,
      errorCode: over.errorCode ?? null,
      errorMessage: over.errorMessage ?? null,
      ...(over.createdAt ? { createdAt: over.createdAt } : {}),
    },
  });
  return jobId;
}

const publish = (uid: string, event: ProgressEvent) => publishProgress(redis, t.prefix, { userId: uid, event });

/** Waits until the browser's progress socket for `uid` is open on the gateway (so no event is missed). */
async function socketOpen(uid: string) {
  for (let i = 0; i < 100 && t.gw.hub.count(uid) === 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect(t.gw.hub.count(uid)).toBeGreaterThan(0);
}

const fillColour = (page: Page) =>
  page
    .getByTestId("tx-progress")
    .locator(".tx-progress-fill")
    .evaluate((el) => getComputedStyle(el).backgroundColor);

describe("the job's progress bar and a job followed from another tab", () => {
  it("a running job opened in a new tab shows its progress (neutral, even at 90 %) and opens its result when done", async () => {
    const user = await account();
    const jobId = await insertJob(user.uid, { status: "transcribing", transcriptionProgress: 90 });
    const { ctx, page, dialogs } = await newPage();
    await logIn(page, user.email);

    // A fresh screen (no job remembered in this tab) follows the running job by itself.
    const bar = page.getByTestId("tx-progress");
    await bar.waitFor();
    expect(await bar.getAttribute("data-phase")).toBe("transcribing");
    expect(await bar.getAttribute("data-value")).toBe("90");
    expect(await bar.getAttribute("data-tone")).toBe("running");
    expect(await fillColour(page)).toBe(ACCENT);
    // The list entry of the running job can be opened.
    const item = page.locator(`[data-testid="tx-recent-item"][data-job-id="${jobId}"]`);
    await item.waitFor();
    expect(await item.isDisabled()).toBe(false);

    // The worker carries on: correction, then done; the screen follows and shows the result.
    await socketOpen(user.uid);
    await publish(user.uid, {
      jobId,
      status: "Transcription complete",
      transcriptionProgress: 100,
      transcription: "Hello there.",
      transcriptionTime: 3,
    });
    await publish(user.uid, { jobId, status: "Correction in progress", correctionProgress: 85 });
    await page.locator('[data-testid="tx-progress"][data-phase="correcting"]').waitFor();
    expect(await bar.getAttribute("data-tone")).toBe("running");
    expect(await fillColour(page)).toBe(ACCENT);
    await t.db.transcriptionJob.update({
      where: { id: jobId },
      data: {
        status: "completed",
        transcription: "Hello there.",
        rewrittenText: "A: Hello there.",
        correctionProgress: 100,
      },
    });
    await publish(user.uid, {
      jobId,
      status: "Correction complete",
      correctionProgress: 100,
      rewrittenText: "A: Hello there.",
      correctionTime: 2,
    });
    await page.locator('[data-testid="tx-progress"][data-phase="complete"]').waitFor();
    expect(await bar.getAttribute("data-tone")).toBe("done");
    expect(await page.getByTestId("tx-phase-label").textContent()).toBe("Correction complete");
    // Success colour (transition allowed to finish), never the error colour.
    await page.waitForFunction(
      (c) =>
        getComputedStyle(document.querySelector('[data-testid="tx-progress"] .tx-progress-fill')!).backgroundColor ===
        c,
      SUCCESS,
    );
    expect(await page.getByTestId("tx-corrected").inputValue()).toBe("A: Hello there.");
    // The result, below the form, came into view when the transcript arrived. Scrolled to its top,
    // it may sit a fraction of a pixel above the viewport (the scroll position is whole pixels, the
    // layout is not: seen as -0.4 px), so "in view" allows under a pixel.
    await page.waitForFunction(() => {
      const r = document.querySelector('[data-testid="tx-result"]')?.getBoundingClientRect();
      return !!r && r.top > -1 && r.top < window.innerHeight;
    });
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    expect(dialogs).toEqual([]);
    await ctx.close();
  });

  it("a failed job's bar is in the error colour", async () => {
    const user = await account();
    const jobId = await insertJob(user.uid, {
      status: "failed",
      transcriptionProgress: 40,
      errorCode: "TRANSCRIPTION_FAILED",
      errorMessage: "boom",
    });
    const { ctx, page } = await newPage();
    await logIn(page, user.email);
    await page.locator(`[data-testid="tx-recent-item"][data-job-id="${jobId}"]`).click();
    await page.locator('[data-testid="tx-progress"][data-phase="failed"]').waitFor();
    expect(await page.getByTestId("tx-progress").getAttribute("data-tone")).toBe("failed");
    await page.waitForFunction(
      (c) =>
        getComputedStyle(document.querySelector('[data-testid="tx-progress"] .tx-progress-fill')!).backgroundColor ===
        c,
      DANGER,
    );
    await ctx.close();
  });

  it("in the right-to-left interface, an English transcript is shown left to right (its own direction)", async () => {
    const user = await account();
    await insertJob(user.uid, {
      status: "completed",
      transcriptionProgress: 100,
      correctionProgress: 100,
      transcription: "We started the business in a garage.",
      rewrittenText: "Anna: We started the business in a garage.",
    });
    const { ctx, page } = await newPage({ locale: "ar" });
    await logIn(page, user.email, "ar");
    await page.getByTestId("tx-recent-item").first().click();
    const transcript = page.getByTestId("tx-transcript");
    await transcript.waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe("rtl");
    for (const id of ["tx-transcript", "tx-corrected"]) {
      const el = page.getByTestId(id);
      expect(await el.getAttribute("dir")).toBe("auto");
      expect(await el.evaluate((e) => e.matches(":dir(ltr)"))).toBe(true);
    }
    await ctx.close();
  });
});

describe("the upload form", () => {
  it("defaults to the general conversation type (wire value general)", async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${t.url}/en/transcription`);
    const select = page.getByTestId("tx-model");
    expect(await select.inputValue()).toBe("general");
    expect(await select.locator("option:checked").textContent()).toMatch(/general conversation/i);
    await ctx.close();
  });

  it("a file over 20 MB is refused with the message at the drop zone, in view", async () => {
    const { ctx, page } = await newPage({ viewport: MOBILE });
    await page.goto(`${t.url}/en/transcription`);
    await page.getByTestId("tx-file-input").setInputFiles({
      name: "long.mp3",
      mimeType: "audio/mpeg",
      buffer: Buffer.alloc(20 * 1024 * 1024 + 1),
    });
    const error = page.getByTestId("tx-file-error");
    await error.waitFor();
    expect(await error.textContent()).toBe("The file is too large. The maximum size is 20 MB.");
    expect(await page.getByTestId("tx-error").count()).toBe(0);
    expect(await page.getByTestId("tx-file-name").count()).toBe(0);
    // Right under the drop zone, and on screen without scrolling to the button.
    const zone = (await page.getByTestId("tx-dropzone").boundingBox())!;
    const box = (await error.boundingBox())!;
    expect(box.y - (zone.y + zone.height)).toBeGreaterThanOrEqual(0);
    expect(box.y - (zone.y + zone.height)).toBeLessThan(24);
    expect(
      await error.evaluate((e) => {
        const r = e.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= window.innerHeight;
      }),
    ).toBe(true);
    const input = page.getByTestId("tx-file-input");
    expect(await input.getAttribute("aria-invalid")).toBe("true");
    expect(await input.getAttribute("aria-describedby")).toContain("tx-file-error");
    await ctx.close();
  });

  it("a visitor's upload opens the in-page login dialog; after logging in the chosen file and form are still there", async () => {
    const user = await account();
    const { ctx, page, dialogs } = await newPage();
    await page.goto(`${t.url}/en/transcription`);
    await page.getByTestId("tx-file-input").setInputFiles(AUDIO);
    await page.getByTestId("tx-interviewer").fill("Anna");
    await page.getByTestId("tx-example").fill("Anna: question");
    await page.getByTestId("tx-submit").click();
    const dialog = page.getByTestId("login-prompt");
    await dialog.waitFor();
    expect(dialogs).toEqual([]);
    expect(await dialog.evaluate((d) => d.matches(":modal"))).toBe(true);
    // Focus is in the dialog (on its e-mail field) and stays there.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("login-prompt-email");
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="login-prompt"]'))).toBe(true);
    }
    // A wrong address is named at the field.
    await page.getByTestId("login-prompt-email").fill("not-an-email");
    await page.getByTestId("login-prompt-submit").click();
    await page.getByTestId("login-prompt-email-error").waitFor();
    await page.getByTestId("login-prompt-email").fill(user.email);
    await page.getByTestId("login-prompt-password").fill(PASSWORD);
    await page.getByTestId("login-prompt-submit").click();
    await dialog.waitFor({ state: "detached" });
    await page.getByTestId("nav-logout").waitFor();
    expect(page.url()).toBe(`${t.url}/en/transcription`);
    expect(await page.getByTestId("tx-file-name").textContent()).toBe("interview-en.mp3");
    expect(await page.getByTestId("tx-interviewer").inputValue()).toBe("Anna");
    expect(await page.getByTestId("tx-example").inputValue()).toBe("Anna: question");
    expect(dialogs).toEqual([]);
    await ctx.close();
  });

  it("the login dialog also registers, and keeps the page while the address is confirmed", async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${t.url}/en/transcription`);
    await page.getByTestId("tx-file-input").setInputFiles(AUDIO);
    await page.getByTestId("tx-submit").click();
    await page.getByTestId("login-prompt").waitFor();
    await page.getByTestId("login-prompt-switch").click();
    await page.getByTestId("login-prompt-email").fill(`e2e-${randomUUID()}@example.com`);
    await page.getByTestId("login-prompt-password").fill(PASSWORD);
    await page.getByTestId("login-prompt-submit").click();
    await page.getByTestId("login-prompt-registered").waitFor();
    expect(await page.getByTestId("login-prompt").getAttribute("data-mode")).toBe("login");
    await page.getByTestId("login-prompt-cancel").click();
    expect(await page.getByTestId("tx-file-name").textContent()).toBe("interview-en.mp3");
    await ctx.close();
  });
});

describe("keyboard and focus", () => {
  /** WCAG relative luminance contrast of an rgb() colour against white. */
  const contrastOnWhite = (rgb: string) => {
    const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
    const lin = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    const l = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    return 1.05 / (l + 0.05);
  };

  it("the main buttons' focus ring is solid and at least 3:1 against white", async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${t.url}/en/login`);
    await page.getByTestId("login-password").focus();
    // Tab to the primary submit button, as a keyboard user does (so :focus-visible applies).
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab");
      if (await page.evaluate(() => document.activeElement?.getAttribute("data-testid") === "login-submit")) break;
    }
    const ring = await page.getByTestId("login-submit").evaluate((el) => {
      const s = getComputedStyle(el);
      return { style: s.outlineStyle, width: Number.parseFloat(s.outlineWidth), colour: s.outlineColor };
    });
    expect(ring.style).toBe("solid");
    expect(ring.width).toBeGreaterThanOrEqual(2);
    expect(contrastOnWhite(ring.colour)).toBeGreaterThanOrEqual(3);
    await ctx.close();
  });

  it("the mobile menu closes with Escape and gives the focus back to its button", async () => {
    const { ctx, page } = await newPage({ viewport: MOBILE });
    await page.goto(`${t.url}/en/summary`);
    const toggle = page.getByTestId("menu-toggle");
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await page.locator("#site-menu").isVisible()).toBe(true);
    await page.getByTestId("language-select").focus();
    await page.keyboard.press("Escape");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await page.locator("#site-menu").isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("menu-toggle");
    await ctx.close();
  });
});

describe("layout on a phone", () => {
  it.each(["de", "ru", "el"])("%s: the three tabs fit, none is cut off", async (lang) => {
    const { ctx, page } = await newPage({ viewport: MOBILE });
    await page.goto(`${t.url}/${lang}/transcription`);
    await page.waitForFunction((l) => document.documentElement.lang === l, lang);
    await page.getByTestId("tab-title").waitFor();
    await page.getByTestId("page-title").waitFor();
    const fit = await page.evaluate(() => {
      const bar = document.querySelector(".feature-tabs-inner") as HTMLElement;
      const tabs = Array.from(bar.querySelectorAll<HTMLElement>(".tab"));
      const box = bar.getBoundingClientRect();
      return {
        barOverflow: bar.scrollWidth - bar.clientWidth,
        tabs: tabs.map((tab) => {
          const r = tab.getBoundingClientRect();
          return { cut: tab.scrollWidth - tab.clientWidth, inside: r.left >= box.left - 1 && r.right <= box.right + 1 };
        }),
      };
    });
    expect(fit.barOverflow).toBeLessThanOrEqual(0);
    expect(fit.tabs).toHaveLength(3);
    for (const tab of fit.tabs) expect(tab).toEqual({ cut: 0, inside: true });
    await ctx.close();
  });

  it("the back-to-top button stays out of the way while reading down and comes back when scrolling up", async () => {
    const { ctx, page } = await newPage({ viewport: MOBILE });
    await page.goto(`${t.url}/en/transcription`);
    await page.evaluate(() => {
      document.body.style.minHeight = "4000px";
    });
    await page.mouse.wheel(0, 600);
    await page.waitForFunction(() => window.scrollY > 400);
    await page.waitForTimeout(200);
    expect(await page.getByTestId("scroll-top").count()).toBe(0);
    await page.mouse.wheel(0, -200);
    await page.getByTestId("scroll-top").waitFor();
    await page.getByTestId("scroll-top").click();
    await page.waitForFunction(() => window.scrollY === 0);
    await ctx.close();
  });

  it("the back-to-top button shows after 300 px on a wide screen", async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${t.url}/en/transcription`);
    await page.evaluate(() => {
      document.body.style.minHeight = "4000px";
    });
    await page.mouse.wheel(0, 800);
    await page.getByTestId("scroll-top").waitFor();
    await ctx.close();
  });
});
