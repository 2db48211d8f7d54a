/// <reference lib="dom" />
// The interview text follows the edited transcript, in Chromium against the real gateway and
// text worker: a word fixed in a line reaches its turn of the interview text (and no other), a
// line in the middle of a run given to the other speaker shows under that speaker, a line split at
// the caret becomes two lines, and a turn rewritten by hand becomes a conflict the user resolves.
import { jest } from "@jest/globals";
import type { TranscriptSegment } from "@kikitori/shared";
import type { Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { OfflineCorrectionEngine } from "../../services/text-worker/src/correction/index.ts";
import { heardSpeakers } from "../../services/text-worker/src/handlers/correct.ts";
import { browserStack, editTranscript } from "../support/browser.ts";
import { insertJob } from "../support/db.ts";
import { createUser } from "../support/pipeline.ts";

jest.setTimeout(240_000);

const PASSWORD = "a long enough password";
const stack = browserStack({ workers: true });

const SEGMENTS: TranscriptSegment[] = [
  { start: 0, end: 4, text: "so um how did you start baking bread", speaker: 0 },
  { start: 4, end: 9, text: "i'm a baker since nineteen ninety my father had a shop", speaker: 1 },
  { start: 9, end: 14, text: "we'd get up at three every morning to light the ovens", speaker: 1 },
  { start: 14, end: 19, text: "i didn't like it at first but i learned", speaker: 1 },
  { start: 19, end: 23, text: "and what did you take from him", speaker: 0 },
  { start: 23, end: 29, text: "i took the recipes and the patience he didn't write anything down", speaker: 1 },
];
const SPEAKERS = [
  { id: 0, name: "Anna", role: "interviewer" },
  { id: 1, name: "Ben", role: "interviewee" },
];

async function finishedJob(uid: string): Promise<string> {
  const row = { segments: SEGMENTS, interviewer: "Anna", interviewee: "Ben", language: "en", speakers: SPEAKERS };
  const { text } = await new OfflineCorrectionEngine().correct({
    transcript: SEGMENTS.map((s) => s.text).join(" "),
    language: "en",
    turns: heardSpeakers(row, "en")?.turns,
    interviewer: "Anna",
    interviewee: "Ben",
    tone: null,
    interviewExample: "",
    fileType: "general",
  });
  return insertJob(stack.t.db, uid, {
    status: "completed",
    segments: SEGMENTS,
    transcription: SEGMENTS.map((s) => s.text).join(" "),
    rewrittenText: text,
    speakers: SPEAKERS,
    interviewer: "Anna",
    interviewee: "Ben",
    durationSeconds: 29,
  });
}

async function login(page: Page, email: string) {
  await page.goto(`${stack.t.url}/en/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${stack.t.url}/en/transcription`);
}

const interview = (page: Page) => page.getByTestId("ws-interview").inputValue();
const paragraphs = (text: string) => text.split(/\n\s*\n/).map((p) => p.trim());
const waitSaved = (page: Page) => page.locator('[data-testid="ws-save-state"][data-state="saved"]').waitFor();
const syncState = (page: Page, state: string) =>
  page.locator(`[data-testid="ws-sync"][data-state="${state}"]`).waitFor({ timeout: 60_000 });

it("edits of the transcript reach the interview text; a hand-edited turn is the user's to pick", async () => {
  const { t, browser } = stack;
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const jobId = await finishedJob(user.uid);
  const page = await browser.newPage();
  await login(page, user.email);
  await page.goto(`${t.url}/en/transcriptions/${jobId}`);
  await syncState(page, "in-sync");
  const before = paragraphs(await interview(page));
  await editTranscript(page);

  // A word fixed in a line of an answer: that turn only, within 60 s.
  const started = Date.now();
  await page.getByTestId("ws-segment-text").nth(2).fill("we'd get up at four every morning to light the ovens");
  await waitSaved(page);
  await page.waitForFunction(
    () =>
      (document.querySelector('[data-testid="ws-interview"]') as HTMLTextAreaElement | null)?.value.includes(
        "four every morning",
      ),
    undefined,
    { timeout: 60_000 },
  );
  console.log(`interview text followed a segment edit in ${Date.now() - started} ms`);
  await syncState(page, "in-sync");
  const after = paragraphs(await interview(page));
  expect(after).toHaveLength(before.length);
  expect(after.filter((p, i) => p !== before[i])).toHaveLength(1);
  expect(await interview(page)).toMatch(/\bwe'd get up at four\b/i);

  // One line in the middle of Ben's run given to Anna, with that line's own speaker menu.
  await page.getByTestId("ws-segment").nth(2).getByTestId("ws-line-speaker").selectOption("0");
  await waitSaved(page);
  await page.waitForFunction(
    () =>
      /^Anna: We'd get up at four/im.test(
        (document.querySelector('[data-testid="ws-interview"]') as HTMLTextAreaElement | null)?.value ?? "",
      ),
    undefined,
    { timeout: 60_000 },
  );
  const moved = paragraphs(await interview(page));
  expect(moved.find((p) => /didn't like it/i.test(p))).toMatch(/^Ben:/);

  // A line split at the caret: two lines, the times divided.
  const line = page.getByTestId("ws-segment-text").nth(3);
  await line.evaluate((el) => {
    const ta = el as HTMLTextAreaElement;
    const at = ta.value.indexOf(" but ");
    ta.focus();
    ta.setSelectionRange(at + 1, at + 1);
  });
  // The caret moved by keys, as a user would put it there.
  await page.keyboard.press("ArrowLeft");
  await page.getByTestId("ws-segment").nth(3).getByTestId("ws-split").click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="ws-segment"]').length === 7);
  expect(await page.getByTestId("ws-segment-text").nth(3).inputValue()).toBe("i didn't like it at first");
  expect(await page.getByTestId("ws-segment-text").nth(4).inputValue()).toBe("but i learned");
  await syncState(page, "in-sync");

  // The user rewrites Ben's first answer by hand, then fixes a word of it in the transcript.
  const mine = (await interview(page)).replace(/my father had a shop/i, "my dad ran a small shop");
  await page.getByTestId("ws-interview").fill(mine);
  await waitSaved(page);
  await page.getByTestId("ws-segment-text").nth(1).fill("i'm a baker since nineteen eighty my father had a shop");
  await waitSaved(page);
  await syncState(page, "conflicts");
  const conflict = page.getByTestId("ws-sync-conflict");
  await expect(conflict.getByTestId("ws-sync-interview").textContent()).resolves.toContain("my dad ran a small shop");
  await expect(conflict.getByTestId("ws-sync-transcript").textContent()).resolves.toMatch(/nineteen eighty/i);
  expect(await interview(page)).toContain("my dad ran a small shop");
  await conflict.getByTestId("ws-sync-take").click();
  await syncState(page, "in-sync");
  expect(await interview(page)).toMatch(/nineteen eighty/i);
  expect(await interview(page)).not.toContain("my dad");
  await page.close();
});
