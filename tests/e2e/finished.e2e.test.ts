/// <reference lib="dom" />
// What a new user trips over, checked in Chromium against the real gateway and workers (no Whisper
// model, so only English can be transcribed, by pocketsphinx): the engine notice in plain words, the
// audio language in interface languages the engine cannot take, the language prefix winning over the
// last one used, the header on one line, the finished result with times and speakers and the focus in
// it, the job page's keyboard stops and phone width, no share buttons on a private page, and a failed job
// that shows its failure and runs again from the library.
import { readFileSync } from "node:fs";
import path from "node:path";
import { jest } from "@jest/globals";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { browserStack } from "../support/browser.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser, upload } from "../support/pipeline.ts";

const en = JSON.parse(readFileSync(new URL("../../web/src/locales/en.json", import.meta.url), "utf8"));

jest.setTimeout(240_000);

const stack = browserStack({ workers: true });
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

const PASSWORD = "a long enough password";
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 375, height: 740 };

/** A new user logged in through the form, on the transcription screen of interface language `lang`. */
async function loggedIn(lang: string, locale: string) {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const ctx = await browser.newContext({ locale, viewport: LAPTOP });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/${lang}/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/${lang}/transcription`);
  return { ctx, page };
}

/** The audio-language menu as the user sees it: the chosen value, whether it is usable, the groups. */
async function languageMenu(page: Page) {
  return page.getByTestId("tx-language").evaluate((el) => {
    const select = el as HTMLSelectElement;
    const outside = Array.from(select.children).filter((c) => c.tagName === "OPTION") as HTMLOptionElement[];
    const group = select.querySelector("optgroup");
    return {
      value: select.value,
      chosenDisabled: select.selectedOptions[0]?.disabled ?? true,
      unavailableOutside: outside.filter((o) => o.disabled).length,
      availableOutside: outside.filter((o) => !o.disabled).map((o) => o.value),
      more: group ? group.querySelectorAll("option").length : 0,
      moreLabel: group?.getAttribute("label") ?? null,
    };
  });
}

it.each([
  ["ja", "ja-JP"],
  ["ar", "ar-EG"],
])(
  "/%s/transcription opens with no error and an audio language the engine takes; the notice names no setting",
  async (lang, locale) => {
    const ctx = await browser.newContext({ locale, viewport: LAPTOP });
    const page = await ctx.newPage();
    await page.goto(`${t.url}/${lang}/transcription`);
    const notice = page.getByTestId("tx-speech-notice");
    await notice.waitFor();
    expect(await page.getByTestId("tx-error").count()).toBe(0);
    expect(await page.getByTestId("tx-language-error").count()).toBe(0);
    const menu = await languageMenu(page);
    // The engine here takes English only: the interface language is not usable, so "Detect automatically".
    expect(menu.value).toBe("auto");
    expect(menu.chosenDisabled).toBe(false);
    expect(menu.availableOutside).toEqual(["auto", "en"]);
    expect(menu.unavailableOutside).toBeLessThanOrEqual(5);
    expect(menu.more).toBeGreaterThan(90);
    expect(menu.moreLabel).toBeTruthy();
    // Languages named in the interface's language, also those the browser's own names lack.
    const names: Record<string, string> = await page
      .getByTestId("tx-language")
      .evaluate((el) =>
        Object.fromEntries(Array.from((el as HTMLSelectElement).options).map((o) => [o.value, o.textContent ?? ""])),
      );
    expect(names.ba).toContain(lang === "ja" ? "バシキール語" : "الباشكيرية");
    expect(names.bo).toContain(lang === "ja" ? "チベット語" : "التبتية");
    expect(names.fr).not.toMatch(/French/);
    // What the user reads: no environment variable, no command.
    const text = (await notice.textContent()) ?? "";
    expect(text.length).toBeGreaterThan(20);
    expect(text).not.toMatch(/[A-Z][A-Z0-9]*_[A-Z0-9_]+|npm |\bmodels?\s+pull\b|MODELS_DIR|WHISPER/);
    // The operator's detail is still there for operators.
    const speech = await (await fetch(`${t.url}/api/speech`)).json();
    expect(speech.notice.setting).toMatch(/WHISPER_MODEL|MODELS_DIR/);
    await ctx.close();
  },
);

it("after the Arabic interface, an /en/ address is in English", async () => {
  const ctx = await browser.newContext({ locale: "en-US", viewport: LAPTOP });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/ar/transcription`);
  await page.getByTestId("tx-submit").waitFor();
  expect(await page.evaluate(() => document.documentElement.lang)).toBe("ar");
  // A new page load (as typing the address does), with Arabic remembered from the visit before.
  await page.goto(`${t.url}/en/transcription`);
  await page.getByTestId("tx-submit").waitFor();
  expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([
    "en",
    "ltr",
  ]);
  expect((await page.getByTestId("tx-submit").textContent())?.trim()).toBe(en.transcription.submit);
  expect((await page.locator("h1").first().textContent())?.trim()).toBe(en.tools.transcription.title);
  await ctx.close();
});

it.each([
  ["en", "en-US"],
  ["ja", "ja-JP"],
])("at 1366 × 900, logged in, the %s header is one line", async (lang, locale) => {
  const { ctx, page } = await loggedIn(lang, locale);
  await page.getByTestId("nav-account").waitFor();
  const header = await page.evaluate(() => {
    const items = Array.from(
      document.querySelectorAll(".site-menu .menu-link, .nav-account-label, [data-testid=nav-logout]"),
    );
    const brand = document.querySelector(".brand")?.getBoundingClientRect();
    return {
      height: document.querySelector(".header-inner")?.getBoundingClientRect().height ?? 0,
      // Every link's text on one line: its box no taller than one line of it.
      wrapped: items
        .filter((e) => {
          const r = e.getBoundingClientRect();
          const line = Number.parseFloat(getComputedStyle(e).lineHeight) || 24;
          return r.height > line * 1.6 + 16;
        })
        .map((e) => e.textContent),
      // All side by side: each item's vertical middle within the brand's row.
      offRow: items
        .filter((e) => {
          const r = e.getBoundingClientRect();
          const mid = (r.top + r.bottom) / 2;
          return !brand || mid < brand.top - 8 || mid > brand.bottom + 8;
        })
        .map((e) => e.textContent),
      scrollWidth: document.documentElement.scrollWidth,
    };
  });
  expect(header.wrapped).toEqual([]);
  expect(header.offRow).toEqual([]);
  expect(header.height).toBeLessThanOrEqual(72);
  expect(header.scrollWidth).toBeLessThanOrEqual(LAPTOP.width);
  await ctx.close();
});

it("a finished job shows times and speakers with the focus in the result; its page is keyboard-friendly and private", async () => {
  const { ctx, page } = await loggedIn("en", "en-US");
  // The transcription screen is public: it has the share buttons.
  await page.getByTestId("share-bar").waitFor();

  // Record the named stages the bar goes through.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __stages: string[] }).__stages = seen;
    const poll = () => {
      const label = document.querySelector('[data-testid="tx-phase-label"]');
      const stage = label?.getAttribute("data-stage");
      if (stage && seen.at(-1) !== stage) seen.push(stage);
      requestAnimationFrame(poll);
    };
    poll();
  });

  await page
    .getByTestId("tx-file-input")
    .setInputFiles(path.resolve(import.meta.dirname, "../fixtures/audio/interview-en.mp3"));
  await page.getByTestId("tx-language").selectOption("en");
  // Keyboard: the submit button, pressed with Enter (it is disabled while the job runs).
  await page.getByTestId("tx-submit").focus();
  await page.keyboard.press("Enter");
  await page.getByTestId("tx-corrected").filter({ hasText: /\S/ }).waitFor({ timeout: 200_000 });

  const result = page.getByTestId("tx-result");
  // The transcript keeps its times and speakers (the job page's list), not one block of text.
  const lines = result.getByTestId("ws-segment");
  await lines.first().waitFor();
  expect(await lines.count()).toBeGreaterThan(3);
  expect(await result.getByTestId("ws-seek").first().textContent()).toMatch(/^\d+:\d{2}$/);
  expect(await result.getByTestId("ws-speaker").count()).toBeGreaterThan(0);
  expect(await result.getByTestId("tx-transcript").textContent()).toMatch(/started the business/);
  // Processing ended: the focus is inside the result, not back at the top of the page.
  await page.waitForFunction(() => !!document.activeElement?.closest('[data-testid="tx-result"]'));
  const stages: string[] = await page.evaluate(() => (window as unknown as { __stages: string[] }).__stages);
  // The stages as named on the bar (finding speech may pass between two frames on a short file).
  expect(stages).toContain("parts");
  if (stages.includes("speech")) expect(stages.indexOf("speech")).toBeLessThan(stages.indexOf("parts"));

  // The job page: one Tab stop per transcript line; Enter on a time plays from there.
  await page.getByTestId("tx-open-job").click();
  await page.getByTestId("ws-segments").waitFor();
  await page.waitForFunction(() => {
    const a = document.querySelector('[data-testid="ws-audio"]') as HTMLAudioElement | null;
    return !!a && a.readyState >= 1;
  });
  const stops = await page.$$eval('[data-testid="ws-segment"]', (rows) =>
    rows.map(
      (r) =>
        Array.from(r.querySelectorAll("button, select, textarea, input, a")).filter(
          (e) => (e as HTMLElement).tabIndex >= 0,
        ).length,
    ),
  );
  expect(stops.length).toBeGreaterThan(3);
  expect(new Set(stops)).toEqual(new Set([1]));
  const third = page.getByTestId("ws-segment").nth(2);
  const start = Number(await third.getAttribute("data-start"));
  await page.$eval('[data-testid="ws-audio"]', (a) => {
    (a as HTMLAudioElement).muted = true;
  });
  await page.getByTestId("ws-seek").first().focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  expect(await page.evaluate(() => document.activeElement?.closest("li")?.getAttribute("data-index"))).toBe("2");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => !(document.querySelector('[data-testid="ws-audio"]') as HTMLAudioElement).paused);
  const at = await page.$eval('[data-testid="ws-audio"]', (a) => (a as HTMLAudioElement).currentTime);
  expect(at).toBeGreaterThanOrEqual(start - 0.01);
  await page.$eval('[data-testid="ws-audio"]', (a) => (a as HTMLAudioElement).pause());

  // A private page: no social share buttons; the job can be deleted from here.
  expect(await page.getByTestId("share-bar").count()).toBe(0);
  expect(await page.locator('[data-testid^="share-"]').count()).toBe(0);
  expect(await page.getByTestId("ws-delete").count()).toBe(1);

  // On a phone the job page fits the screen (no sideways scrolling), in English and in Arabic, and the
  // title keeps a margin from the screen's edge on both sides.
  const jobPath = new URL(page.url()).pathname;
  await page.setViewportSize(PHONE);
  for (const lang of ["en", "ar"]) {
    await page.goto(`${t.url}${jobPath.replace(/^\/en\//, `/${lang}/`)}`);
    await page.getByTestId("ws-segments").waitFor();
    const fit = await page.evaluate(() => {
      const title = document.querySelector('[data-testid="ws-title"]')?.getBoundingClientRect();
      return {
        dir: document.documentElement.dir,
        scrollWidth: document.documentElement.scrollWidth,
        left: title?.left ?? -1,
        right: title ? window.innerWidth - title.right : -1,
      };
    });
    expect(fit.dir).toBe(lang === "ar" ? "rtl" : "ltr");
    expect(fit.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expect(fit.left).toBeGreaterThanOrEqual(8);
    expect(fit.right).toBeGreaterThanOrEqual(8);
  }
  await page.setViewportSize(LAPTOP);
  await page.goto(`${t.url}${jobPath}`);
  await page.getByTestId("ws-segments").waitFor();
  expect(await page.locator('[data-testid^="share-"]').count()).toBe(0);
  await page.getByTestId("nav-library").click();
  await page.getByTestId("lib-item").first().waitFor();
  expect(await page.locator('[data-testid^="share-"]').count()).toBe(0);
  await ctx.close();
});

it("a failed job shows its failure (not 'All changes saved'), and 'Try again' in the library runs it again to the end", async () => {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const mp3 = readFileSync(path.resolve(import.meta.dirname, "../fixtures/audio/interview-en.mp3"));
  const up = await upload(
    t,
    user.token,
    { data: mp3, name: "interview-en.mp3", type: "audio/mpeg" },
    { model: "meeting", language: "en", speakers: "2" },
  );
  expect(up.status).toBe(202);
  const jobId: string = up.body.jobId;
  // Let it run through, then make it a job whose correction stopped (as when the language model is
  // unreachable): the transcript is kept, the interview text is missing.
  let status = "";
  while (status !== "completed") {
    status = (await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).status;
    expect(status).not.toBe("failed");
    await new Promise((r) => setTimeout(r, 500));
  }
  await t.db.transcriptionJob.update({
    where: { id: jobId },
    data: {
      status: "failed",
      errorCode: "CORRECTION_FAILED",
      errorMessage: "stopped",
      failedStage: "correction",
      rewrittenText: null,
      correctionTime: null,
      correctionProgress: 0,
    },
  });

  const ctx = await browser.newContext({ locale: "en-US", viewport: LAPTOP });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);

  // The job page says it failed and why; nothing claims the changes are saved; it can be deleted.
  await page.goto(`${t.url}/en/transcriptions/${jobId}`);
  const failed = page.getByTestId("ws-failed");
  await failed.waitFor();
  expect(await failed.textContent()).toContain(en.errors.CORRECTION_FAILED);
  expect(await page.getByTestId("ws-save-state").count()).toBe(0);
  expect(await page.getByTestId("ws-delete").count()).toBe(1);

  // "Try again" in the library runs the job again and opens its page, which follows it to the end.
  await page.getByTestId("nav-library").click();
  const item = page.locator(`[data-testid="lib-item"][data-job-id="${jobId}"]`);
  // Asking to delete puts the confirmation on a line of its own: the row's title keeps its room.
  const titleWidth = () => item.getByTestId("lib-open").evaluate((e) => e.getBoundingClientRect().width);
  const before = await titleWidth();
  await item.getByTestId("lib-delete").click();
  await item.getByTestId("lib-delete-confirm").waitFor();
  expect(await titleWidth()).toBeGreaterThanOrEqual(before - 1);
  await item.getByRole("button", { name: en.library.cancel, exact: true }).click();
  await item.getByTestId("lib-retry").waitFor();
  await item.getByTestId("lib-retry").click();
  await page.waitForURL(`${t.url}/en/transcriptions/${jobId}`);
  await page.getByTestId("ws-interview").waitFor({ timeout: 180_000 });
  await page.getByTestId("ws-segment").first().waitFor();
  expect(await page.getByTestId("ws-failed").count()).toBe(0);
  const after = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  expect(after.status).toBe("completed");
  expect(after.rewrittenText).toBeTruthy();
  expect(await page.getByTestId("ws-interview").inputValue()).toBe(after.rewrittenText);
  await ctx.close();
});
