/// <reference lib="dom" />
// The transcript's words in Chromium: on the job page's read view (and on a shared link's page) every
// word is an element with its times; a click on one seeks the player to its start and plays, and the
// word being played is marked (aria-current), moving with the player; estimated word times say so;
// words are not Tab stops; an edited line, once saved, shows the words the server gave it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { jest } from "@jest/globals";
import { createObjectStore } from "@kikitori/shared/server";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { loadGatewayConfig } from "../../services/gateway/src/config.ts";
import { apiCall } from "../support/api.ts";
import { browserStack, editTranscript } from "../support/browser.ts";
import { insertJob } from "../support/db.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";

jest.setTimeout(120_000);

const en = JSON.parse(readFileSync(new URL("../../web/src/locales/en.json", import.meta.url), "utf8"));
const PASSWORD = "a long enough password";
const stack = browserStack({});
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

/** Line 0 and 2 carry the engine's word times (words without punctuation); line 1 has none. */
const SEGMENTS = [
  {
    start: 0.5,
    end: 3.5,
    text: "So how did the bakery start?",
    speaker: 0,
    words: [
      { start: 0.5, end: 0.8, text: "So" },
      { start: 0.8, end: 1.1, text: "how" },
      { start: 1.1, end: 1.4, text: "did" },
      { start: 1.4, end: 1.6, text: "the" },
      { start: 1.6, end: 2.4, text: "bakery" },
      { start: 2.4, end: 3.5, text: "start" },
    ],
  },
  { start: 4, end: 8, text: "We opened it in Osaka.", speaker: 1 },
  {
    start: 9,
    end: 14,
    text: "With two big ovens, and a lot of flour.",
    speaker: 1,
    words: [
      { start: 9, end: 9.4, text: "With" },
      { start: 9.4, end: 9.8, text: "two" },
      { start: 9.8, end: 10.2, text: "big" },
      { start: 10.2, end: 12, text: "ovens" },
      { start: 12, end: 12.3, text: "and" },
      { start: 12.3, end: 12.5, text: "a" },
      { start: 12.5, end: 12.9, text: "lot" },
      { start: 12.9, end: 13.2, text: "of" },
      { start: 13.2, end: 14, text: "flour" },
    ],
  },
];

async function finishedJob(uid: string): Promise<string> {
  const mp3 = readFileSync(path.resolve(import.meta.dirname, "../fixtures/audio/interview-en.mp3"));
  const jobId = await insertJob(t.db, uid, {
    status: "completed",
    title: "The Osaka bakery",
    audioBytes: mp3.length,
    durationSeconds: 61.38,
    detectedLanguage: "en",
    audioLanguage: "en",
    segments: SEGMENTS,
    transcription: SEGMENTS.map((s) => s.text).join(" "),
    rewrittenText:
      "Anna: So how did the bakery start?\n\nBen: We opened it in Osaka. With two big ovens, and a lot of flour.",
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
  });
  const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  await createObjectStore(loadGatewayConfig(t.env)).put(job.audioKey, mp3, mp3.length, "audio/mpeg");
  return jobId;
}

/** The words as shown: text, times, estimated or not, marked or not. */
const shownWords = (page: Page) =>
  page.$$eval('[data-testid="ws-word"]', (els) =>
    els.map((e) => ({
      text: e.textContent,
      start: Number(e.getAttribute("data-start")),
      end: Number(e.getAttribute("data-end")),
      approximate: e.getAttribute("data-approximate") === "true",
      title: e.getAttribute("title"),
      marked: e.getAttribute("aria-current") === "true" && e.classList.contains("active"),
    })),
  );
const markedWords = (page: Page) =>
  page.$$eval('[data-testid="ws-word"][aria-current="true"]', (els) => els.map((e) => e.textContent));

/** Waits for the audio's metadata, muted, and records every time it is told to seek to. */
async function readyAudio(page: Page, testId: string) {
  await page.waitForFunction((id) => {
    const a = document.querySelector(`[data-testid="${id}"]`) as HTMLAudioElement | null;
    return !!a && a.readyState >= 1;
  }, testId);
  await page.$eval(`[data-testid="${testId}"]`, (a) => {
    const audio = a as HTMLAudioElement;
    audio.muted = true;
    const seeks: number[] = [];
    (window as unknown as { __seeks: number[] }).__seeks = seeks;
    audio.addEventListener("seeking", () => seeks.push(audio.currentTime));
  });
}
const seeks = (page: Page) => page.evaluate(() => (window as unknown as { __seeks: number[] }).__seeks);

/**
 * Clicks a word: the player is told to go to its start and plays (paused again as soon as it starts,
 * so the position stays in the word); that word is then the one marked.
 */
async function clickWord(page: Page, audioId: string, text: string, start: number) {
  const before = (await seeks(page)).length;
  await page.$eval(`[data-testid="${audioId}"]`, (a) => {
    const audio = a as HTMLAudioElement;
    const w = window as unknown as { __played: boolean };
    w.__played = false;
    audio.addEventListener(
      "play",
      () => {
        w.__played = true;
        audio.pause();
      },
      { once: true },
    );
  });
  await page.locator(`[data-testid="ws-word"][data-start="${start}"]`).click();
  await page.waitForFunction(
    (id) =>
      (window as unknown as { __played: boolean }).__played &&
      (document.querySelector(`[data-testid="${id}"]`) as HTMLAudioElement).paused,
    audioId,
  );
  const after = await seeks(page);
  expect(after.length).toBe(before + 1);
  expect(after.at(-1)).toBeCloseTo(start, 2);
  await page.waitForFunction((want) => {
    const marked = document.querySelectorAll('[data-testid="ws-word"][aria-current="true"]');
    return marked.length === 1 && marked[0].textContent === want && marked[0].classList.contains("active");
  }, text);
}

it("job page read view: a click on a word plays from it, the word playing is marked, an edit's words come from the server", async () => {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const jobId = await finishedJob(user.uid);
  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  await page.goto(`${t.url}/en/transcriptions/${jobId}`);

  // Reading is the view at first (words, no fields, no split buttons); the switch says so by name and
  // pressed state, Edit one click away.
  await page.getByTestId("ws-word").first().waitFor();
  expect(await page.locator("textarea.ws-segment-text").count()).toBe(0);
  expect(await page.getByTestId("ws-split").count()).toBe(0);
  const viewSwitch = page.getByRole("group", { name: en.job.view });
  await viewSwitch.getByRole("button", { name: en.job.viewRead, pressed: true }).waitFor();
  await viewSwitch.getByRole("button", { name: en.job.viewEdit, pressed: false }).waitFor();
  expect(await page.getByTestId("ws-segment-text").allTextContents()).toEqual(SEGMENTS.map((s) => s.text));
  const words = await shownWords(page);
  expect(words.slice(0, 6).map((w) => [w.text, w.start, w.end])).toEqual(
    SEGMENTS[0].words?.map((w) => [w.text, w.start, w.end]),
  );
  // Line 1 has no word times: its words are spread over the line, each saying its time is estimated.
  const estimated = words.filter((w) => w.approximate);
  expect(estimated.map((w) => w.text)).toEqual(["We", "opened", "it", "in", "Osaka."]);
  expect(new Set(estimated.map((w) => w.title))).toEqual(new Set([en.job.wordEstimated]));
  expect(estimated[0].start).toBe(4);
  expect(words.filter((w) => !w.approximate).every((w) => w.title === null)).toBe(true);
  expect(words.some((w) => w.marked)).toBe(false);

  // Words are not Tab stops: each line keeps one.
  const tabStops = () =>
    page.$$eval('[data-testid="ws-segment"]', (rows) =>
      rows.map((r) => Array.from(r.querySelectorAll<HTMLElement>("*")).filter((e) => e.tabIndex >= 0).length),
    );
  expect(await tabStops()).toEqual([1, 1, 1]);

  // A click on a word: the player jumps to its start and plays; the word is marked.
  await readyAudio(page, "ws-audio");
  await clickWord(page, "ws-audio", "ovens", 10.2);
  expect(await page.getByTestId("ws-segment").nth(2).getAttribute("aria-current")).toBe("true");
  await clickWord(page, "ws-audio", "bakery", 1.6);
  // An estimated word seeks too.
  await clickWord(page, "ws-audio", estimated[4].text ?? "", estimated[4].start);

  // The mark follows the player: only the old and the new word change.
  await page.$eval('[data-testid="ws-audio"]', (a) => {
    (a as HTMLAudioElement).currentTime = 12.95;
  });
  await page.waitForFunction(
    () => document.querySelector('[data-testid="ws-word"][aria-current="true"]')?.textContent === "of",
  );
  expect(await markedWords(page)).toEqual(["of"]);

  // Editing works as before; once saved, the line's words are the server's (estimated for the new text).
  await editTranscript(page);
  expect(await page.locator("textarea.ws-segment-text").count()).toBe(3);
  expect(await page.getByTestId("ws-word").count()).toBe(0);
  await page.getByTestId("ws-segment-text").nth(0).fill("So how did your bakery begin?");
  await page.locator('[data-testid="ws-save-state"][data-state="saved"]').waitFor();
  // The split buttons are Edit's: last used there, each line still keeps one Tab stop in Read.
  await page.getByTestId("ws-split").nth(1).focus();
  await page.getByTestId("ws-view-read").click();
  const line = page.getByTestId("ws-segment").nth(0);
  await line.locator('[data-testid="ws-word"][data-approximate="true"]').first().waitFor();
  expect(await page.getByTestId("ws-split").count()).toBe(0);
  expect(await tabStops()).toEqual([1, 1, 1]);
  expect(await line.getByTestId("ws-word").allTextContents()).toEqual(["So", "how", "did", "your", "bakery", "begin?"]);
  const saved = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  const first = (saved.segments as Array<{ words: Array<{ start: number }> }>)[0];
  expect(
    await line.getByTestId("ws-word").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-start")))),
  ).toEqual(first.words.map((w) => w.start));
  // The view chosen is kept for the next visit: Edit, once chosen, wins over the read view.
  await page.reload();
  await page.getByTestId("ws-word").first().waitFor();
  await editTranscript(page);
  await page.reload();
  await page.locator("textarea.ws-segment-text").first().waitFor();
  expect(await page.getByTestId("ws-view-edit").getAttribute("aria-pressed")).toBe("true");
  expect(await page.getByTestId("ws-word").count()).toBe(0);
  await ctx.close();
});

it("a shared link's page: every word an element, a click plays from it and marks it", async () => {
  const user = await createUser(t);
  const jobId = await finishedJob(user.uid);
  const made = await apiCall(t, user.token, `/api/transcriptions/${jobId}/shares`, {
    method: "POST",
    body: { expiresInDays: 1, includeAudio: true },
  });
  expect(made.status).toBe(201);
  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(made.body.url);
  await page.getByTestId("ws-word").first().waitFor();
  expect(await page.getByTestId("ws-segment-text").allTextContents()).toEqual(SEGMENTS.map((s) => s.text));
  expect(await page.getByTestId("ws-word").count()).toBe(6 + 5 + 9);
  await readyAudio(page, "shared-audio");
  await clickWord(page, "shared-audio", "flour", 13.2);
  await ctx.close();
});
