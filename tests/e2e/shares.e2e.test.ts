/// <reference lib="dom" />
// Read-only share links in Chromium: the owner makes a link with the audio on the job page and copies
// it; a fresh browser without a login opens it and sees the title, speakers, timed transcript and
// interview text with nothing editable, the audio playing from its signed URL, a noindex tag and no
// share buttons; once the owner revokes it, the same page says the link expired or was revoked.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { jest } from "@jest/globals";
import { createObjectStore } from "@kikitori/shared/server";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { loadGatewayConfig } from "../../services/gateway/src/config.ts";
import { browserStack } from "../support/browser.ts";
import { insertJob } from "../support/db.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";

jest.setTimeout(120_000);

const PASSWORD = "a long enough password";
const stack = browserStack({});
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

const SEGMENTS = [
  { start: 0, end: 3.5, text: "So how did the bakery start?", speaker: 0 },
  { start: 3.8, end: 8.2, text: "We opened it in Osaka in 2019 with two ovens.", speaker: 1 },
];
const INTERVIEW = "Anna: How did the bakery start?\n\nBen: We opened it in Osaka in 2019 with two ovens.";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * axe-core's serious and critical violations of a page (ids and first targets), opened in its own
 * context that lets the injected script run (the app's CSP forbids inline scripts).
 */
async function seriousViolations(
  url: string,
  ready: string,
  opts: { email?: string; scope?: string } = {},
): Promise<string[]> {
  const { email, scope } = opts;
  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const page = await ctx.newPage();
  if (email) await login(page, email);
  await page.goto(url);
  await page.locator(ready).waitFor();
  await page.waitForLoadState("networkidle");
  await page.addScriptTag({ path: AXE });
  // On the job page only the share panel is this feature's; the shared pages are its own.
  const found: string[] = await page.evaluate(async (scope) => {
    const result = await (window as any).axe.run(scope ?? document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v: { impact: string | null }) => v.impact === "serious" || v.impact === "critical")
      .map((v: { id: string; nodes: Array<{ target: string[] }> }) => `${v.id}: ${v.nodes[0]?.target.join(" ")}`);
  }, scope);
  await ctx.close();
  return found;
}

async function login(page: Page, email: string) {
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
}

/** A finished job of the user, its recording (a real MP3) in the store. */
async function finishedJob(uid: string): Promise<string> {
  const mp3 = readFileSync(path.resolve(import.meta.dirname, "../fixtures/audio/interview-en.mp3"));
  const jobId = await insertJob(t.db, uid, {
    status: "completed",
    originalName: "bakery.mp3",
    title: "The Osaka bakery",
    audioBytes: mp3.length,
    durationSeconds: 8.2,
    detectedLanguage: "en",
    segments: SEGMENTS,
    transcription: SEGMENTS.map((s) => s.text).join(" "),
    rewrittenText: INTERVIEW,
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
  });
  const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  await createObjectStore(loadGatewayConfig(t.env)).put(job.audioKey, mp3, mp3.length, "audio/mpeg");
  return jobId;
}

it("a link made on the job page opens read-only without a login, and stops working once revoked", async () => {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const jobId = await finishedJob(user.uid);

  // The owner makes a 30-day link with the audio on the job page.
  const ownerCtx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const owner = await ownerCtx.newPage();
  await login(owner, user.email);
  await owner.goto(`${t.url}/en/transcriptions/${jobId}`);
  const panel = owner.getByTestId("ws-share");
  await panel.waitFor();
  await panel.getByTestId("ws-share-none").waitFor();
  await panel.getByTestId("ws-share-days").selectOption("30");
  await panel.getByTestId("ws-share-audio").check();
  await panel.getByTestId("ws-share-create").click();
  const url = await panel.getByTestId("ws-share-url").inputValue();
  expect(url).toMatch(new RegExp(`^${t.url}/en/shared/[A-Za-z0-9_-]{43}$`));
  await panel.getByTestId("ws-share-item").waitFor();
  expect(await panel.getByTestId("ws-share-item").count()).toBe(1);
  expect(
    await seriousViolations(`${t.url}/en/transcriptions/${jobId}`, '[data-testid="ws-share-item"]', {
      email: user.email,
      scope: '[data-testid="ws-share"]',
    }),
  ).toEqual([]);
  // The job page is private: no social share buttons (the panel's own controls are ws-share-*).
  expect(await owner.locator('[data-testid^="share-"]').count()).toBe(0);

  // Someone else, not logged in, opens the link.
  const guestCtx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const guest = await guestCtx.newPage();
  const response = await guest.goto(url);
  expect(response?.headers()["x-robots-tag"]).toContain("noindex");
  await guest.getByTestId("shared").waitFor();
  expect(await guest.getByTestId("page-title").textContent()).toBe("The Osaka bakery");
  expect(await guest.getByTestId("shared-speakers").textContent()).toBe("Anna, Ben");
  expect(await guest.getByTestId("ws-segment-text").allTextContents()).toEqual(SEGMENTS.map((s) => s.text));
  expect(await guest.getByTestId("shared-interview").locator("p").allTextContents()).toEqual([
    "Anna: How did the bakery start?",
    "Ben: We opened it in Osaka in 2019 with two ovens.",
  ]);
  // Nothing can be edited: no editable text field or element, no speaker menus.
  const editable = await guest.evaluate(
    () =>
      Array.from(document.querySelectorAll("textarea, [contenteditable]:not([contenteditable='false'])")).filter(
        (el) => !(el as HTMLTextAreaElement).readOnly,
      ).length,
  );
  expect(editable).toBe(0);
  expect(await guest.locator("select.ws-speaker-select").count()).toBe(0);
  // Not indexed, no share buttons, nobody logged in.
  expect(await guest.$eval('meta[name="robots"]', (m) => (m as HTMLMetaElement).content)).toContain("noindex");
  expect(await guest.locator('[data-testid^="share-"]').count()).toBe(0);
  expect(await guest.getByTestId("nav-login").count()).toBe(1);
  expect(await seriousViolations(url, '[data-testid="shared-interview"]')).toEqual([]);
  // The audio plays from its signed URL: a click on a line seeks there.
  const audio = guest.getByTestId("shared-audio");
  await guest.waitForFunction(
    () => ((document.querySelector('[data-testid="shared-audio"]') as HTMLAudioElement | null)?.readyState ?? 0) >= 1,
  );
  expect(await audio.getAttribute("src")).toMatch(/^\/api\/shared\/[\w-]{43}\/audio\?exp=\d+&sig=/);
  await guest.getByTestId("ws-seek").nth(1).click();
  expect(
    await guest.$eval('[data-testid="shared-audio"]', (a) => Math.round((a as HTMLAudioElement).currentTime * 10)),
  ).toBe(38);

  // 15 minutes later the audio URL has lapsed: when the player fails, the page gets a new URL and
  // goes on from the same point. (The failure is the element's error event; the clock is the page's.)
  const firstSrc = await audio.getAttribute("src");
  await guest.clock.setFixedTime(Date.now() + 16 * 60_000);
  await guest.$eval('[data-testid="shared-audio"]', (a) => a.dispatchEvent(new Event("error")));
  await guest.waitForFunction(
    (old) => document.querySelector('[data-testid="shared-audio"]')?.getAttribute("src") !== old,
    firstSrc,
  );
  await guest.waitForFunction(() => {
    const a = document.querySelector('[data-testid="shared-audio"]') as HTMLAudioElement | null;
    return !!a && a.readyState >= 1 && Math.round(a.currentTime * 10) === 38;
  });
  expect(await guest.getByText("The audio could not be loaded", { exact: false }).count()).toBe(0);

  // The owner revokes it: the page now says so.
  await panel.getByTestId("ws-share-revoke").click();
  await panel.getByTestId("ws-share-none").waitFor();
  await guest.reload();
  const gone = guest.locator('[data-testid="shared-gone"][data-gone="true"]');
  await gone.waitFor();
  expect(await gone.getByTestId("page-title").textContent()).toBe("This link has expired or was revoked");
  expect(await guest.getByTestId("ws-segment-text").count()).toBe(0);
  expect(await seriousViolations(url, '[data-testid="shared-gone"]')).toEqual([]);
  expect(await guest.$eval('meta[name="robots"]', (m) => (m as HTMLMetaElement).content)).toContain("noindex");

  await guestCtx.close();
  await ownerCtx.close();
});
