/// <reference lib="dom" />
// Quotes and the player's keys on the job page, in Chromium against the real gateway: words selected
// in the transcript become a quote (the Save quote button, and Ctrl+Shift+Enter) listed with its
// speaker and timecode, and so do words selected in the interview text (the transcript's words they
// were made from); it plays its span only and copies as "…" — Name [mm:ss]; a note is kept;
// "Insert timestamp" (button and Ctrl+;) puts [mm:ss] of the playing time into the interview text;
// Ctrl+, jumps back 5 s while typing.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { jest } from "@jest/globals";
import { createObjectStore } from "@kikitori/shared/server";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { loadGatewayConfig } from "../../services/gateway/src/config.ts";
import { browserStack, editTranscript } from "../support/browser.ts";
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

/** `read` again until `done` holds for its value (or 10 s pass); the last value. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  let v = await read();
  while (!done(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  return v;
}

const audioTime = (page: Page) => page.$eval('[data-testid="ws-audio"]', (a) => (a as HTMLAudioElement).currentTime);

/** A finished job with its recording in the store (no workers needed). */
async function finishedJob(uid: string): Promise<string> {
  const id = randomUUID();
  const mp3 = readFileSync(path.resolve(import.meta.dirname, "../fixtures/audio/interview-en.mp3"));
  const audioKey = `users/${uid}/audio/${id}.mp3`;
  await createObjectStore(loadGatewayConfig(t.env)).put(audioKey, mp3, mp3.length, "audio/mpeg");
  await insertJob(t.db, uid, {
    id,
    audioKey,
    audioBytes: mp3.length,
    durationSeconds: 61.38,
    audioLanguage: "en",
    status: "completed",
    originalName: "garage.mp3",
    segments: [
      { start: 0, end: 4.5, text: "Thank you for joining us today.", speaker: 0 },
      { start: 4.5, end: 8, text: "Can you tell me how you started your company?", speaker: 0 },
      { start: 8.2, end: 12.5, text: "We started the business in a small garage ten years ago.", speaker: 1 },
      { start: 12.5, end: 17, text: "At first we only had two customers.", speaker: 1 },
    ],
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
    transcription: "Thank you for joining us today. …",
    rewrittenText: "Anna: How did you start your company?\n\nBen: We started in a small garage.",
  });
  return id;
}

it("saves selected words as a quote, plays and copies it; inserts timestamps; Ctrl+, jumps back", async () => {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const jobId = await finishedJob(user.uid);
  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  await page.goto(`${t.url}/en/transcriptions/${jobId}`);
  await page.getByTestId("ws-audio").waitFor();
  await page.waitForFunction(() => {
    const a = document.querySelector<HTMLAudioElement>('[data-testid="ws-audio"]');
    return !!a && a.readyState >= 1;
  });
  expect(await page.getByTestId("ws-quote-save").isDisabled()).toBe(true);

  // Select "a small garage" in Ben's line (its text field, in Edit) with the keyboard, then Save quote.
  await editTranscript(page);
  const line = page.getByTestId("ws-segment-text").nth(2);
  await line.click();
  await line.evaluate((el) => {
    const ta = el as HTMLTextAreaElement;
    const at = ta.value.indexOf("a small garage");
    ta.setSelectionRange(at, at);
  });
  for (let i = 0; i < 3; i++) await page.keyboard.press("Control+Shift+ArrowRight");
  await page.getByTestId("ws-quote-selection").waitFor();
  expect(await page.getByTestId("ws-quote-selection").locator("q").textContent()).toBe("a small garage");
  await page.getByTestId("ws-quote-save").click();
  const quote = page.getByTestId("ws-quote").first();
  await quote.waitFor();
  expect(await quote.getByTestId("ws-quote-text").textContent()).toBe("a small garage");
  expect(await quote.getByTestId("ws-quote-speaker").textContent()).toBe("Ben");
  expect(await quote.getByTestId("ws-quote-time").textContent()).toBe("00:10");

  // A whole line by the keyboard alone: Ctrl+Shift+Enter saves the selection.
  const first = page.getByTestId("ws-segment-text").nth(0);
  await first.click();
  await page.keyboard.press("Control+a");
  await page.getByTestId("ws-quote-selection").locator("q").filter({ hasText: "Thank you" }).waitFor();
  await page.keyboard.press("Control+Shift+Enter");
  await page.locator('[data-testid="ws-quote"]').nth(1).waitFor();
  const quotes = page.getByTestId("ws-quote");
  expect(await quotes.getByTestId("ws-quote-text").allTextContents()).toEqual([
    "Thank you for joining us today.",
    "a small garage",
  ]);
  expect(await quotes.getByTestId("ws-quote-speaker").allTextContents()).toEqual(["Anna", "Ben"]);

  // Copy: "…" — Name [mm:ss]. A note is saved when the field is left.
  const ben = quotes.nth(1);
  await ben.getByTestId("ws-quote-copy").click();
  await ben.getByRole("status").filter({ hasText: "Copied" }).waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('"a small garage" — Ben [00:10]');
  await ben.getByTestId("ws-quote-note").fill("Opening anecdote");
  await page.getByTestId("ws-title").focus();
  const noted = () => t.db.transcriptQuote.findMany({ where: { jobId, note: { not: null } } });
  expect((await until(noted, (rows) => rows.length > 0)).map((q) => q.note)).toEqual(["Opening anecdote"]);

  // Play: only the quote's span, then it pauses at its end.
  const api = await (
    await fetch(`${t.url}/api/transcriptions/${jobId}/quotes`, { headers: { authorization: `Bearer ${user.token}` } })
  ).json();
  const span = api.quotes.find((q: { text: string }) => q.text === "a small garage");
  await ben.getByTestId("ws-quote-play").click();
  await page.waitForFunction(() => !document.querySelector<HTMLAudioElement>('[data-testid="ws-audio"]')?.paused);
  await page.waitForFunction(
    () => document.querySelector<HTMLAudioElement>('[data-testid="ws-audio"]')?.paused,
    undefined,
    { timeout: 15_000 },
  );
  const stopped = await audioTime(page);
  expect(stopped).toBeGreaterThanOrEqual(span.end - 0.05);
  expect(stopped).toBeLessThan(span.end + 0.5);

  // Insert timestamp at the caret of the interview text (button, then Ctrl+;), and Ctrl+, while typing.
  const interview = page.getByTestId("ws-interview");
  await interview.click();
  await page.keyboard.press("Control+End");
  await page.getByTestId("ws-insert-time").click();
  const stamp = `[00:${String(Math.floor(stopped)).padStart(2, "0")}]`;
  expect(await interview.inputValue()).toBe(
    `Anna: How did you start your company?\n\nBen: We started in a small garage. ${stamp} `,
  );
  await page.$eval('[data-testid="ws-audio"]', (a) => {
    (a as HTMLAudioElement).currentTime = 20.4;
  });
  await page.keyboard.press("Control+Comma");
  expect(
    await until(
      () => audioTime(page),
      (s) => s < 16,
    ),
  ).toBeCloseTo(15.4, 0);
  await page.keyboard.press("Control+Semicolon");
  expect(await interview.inputValue()).toMatch(/\[00:1\d\] \[00:15\] $/);

  // Words selected in the interview text are looked for in the transcript: the words said are quoted.
  const selectIn = (text: string) =>
    interview.evaluate((el, part) => {
      const ta = el as HTMLTextAreaElement;
      const at = ta.value.indexOf(part);
      ta.focus();
      ta.setSelectionRange(at, at + part.length);
    }, text);
  await selectIn("Anna: How did you start your company?");
  await page.getByTestId("ws-quote-missed").waitFor();
  await selectIn("We started in a small garage.");
  await page
    .getByTestId("ws-quote-selection")
    .locator("q")
    .filter({ hasText: "We started the business in a small garage" })
    .waitFor();
  await page.getByTestId("ws-quote-save").click();
  await page.locator('[data-testid="ws-quote"]').nth(2).waitFor();
  expect(await quotes.getByTestId("ws-quote-text").allTextContents()).toEqual([
    "Thank you for joining us today.",
    "We started the business in a small garage",
    "a small garage",
  ]);
  await ctx.close();
});
