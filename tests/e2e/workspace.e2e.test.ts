/// <reference lib="dom" />
// The interview workspace in Chromium against the real gateway and workers: an upload
// shows in the library; its page plays along (a click on a segment seeks there, playing marks the
// segments in order, keys work); a speaker rename and a sentence edit are saved and reach the DOCX,
// SRT and WebVTT exports (read back with mammoth and a subtitle parser); a second tab's stale edit is
// refused; the original comes back from the versions; a Japanese word is found inside a Japanese
// transcript; delete removes the objects from the store.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { jest } from "@jest/globals";
import { createObjectStore } from "@kikitori/shared/server";
import mammoth from "mammoth";
import type { Browser, Page } from "playwright-core";
import { parseSync } from "subtitle";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { loadGatewayConfig } from "../../services/gateway/src/config.ts";
import { browserStack, editTranscript } from "../support/browser.ts";
import { insertJob } from "../support/db.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser, upload } from "../support/pipeline.ts";

jest.setTimeout(240_000);

const PASSWORD = "a long enough password";
const stack = browserStack({ workers: true });
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

async function login(page: Page, email: string) {
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
}

const segmentStarts = (page: Page) =>
  page.$$eval('[data-testid="ws-segment"]', (els) => els.map((e) => Number(e.getAttribute("data-start"))));
const activeIndex = (page: Page) =>
  page.$eval('[data-testid="ws-segments"]', (ol) => {
    const a = ol.querySelector('[aria-current="true"]');
    return a ? Number(a.getAttribute("data-index")) : -1;
  });
const audioTime = (page: Page) => page.$eval('[data-testid="ws-audio"]', (a) => (a as HTMLAudioElement).currentTime);
const waitSaved = (page: Page) => page.locator('[data-testid="ws-save-state"][data-state="saved"]').waitFor();

it("library → job page → seek, play along, edit, export, conflict, versions, search, delete", async () => {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const mp3 = readFileSync(path.resolve(import.meta.dirname, "../fixtures/audio/interview-en.mp3"));
  const up = await upload(
    t,
    user.token,
    { data: mp3, name: "interview-en.mp3", type: "audio/mpeg" },
    { model: "meeting", interviewer: "Anna", interviewee: "Ben", language: "en", speakers: "2" },
  );
  expect(up.status).toBe(202);
  const jobId: string = up.body.jobId;

  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await login(page, user.email);

  // The header leads to the library, which lists the job (running or done).
  await page.getByTestId("nav-library").click();
  await page.waitForURL(`${t.url}/en/transcriptions`);
  const item = page.locator(`[data-testid="lib-item"][data-job-id="${jobId}"]`);
  await item.waitFor();
  expect(await item.getByTestId("lib-open").textContent()).toBe("interview-en.mp3");

  // Open it: while it runs the page follows it; once done the workspace opens by itself.
  await item.getByTestId("lib-open").click();
  await page.waitForURL(`${t.url}/en/transcriptions/${jobId}`);
  await page.getByTestId("ws").waitFor({ timeout: 180_000 });
  await page.getByTestId("ws-interview").waitFor();
  expect(await page.getByTestId("ws-speaker-names").textContent()).toBe("Anna, Ben");

  // The player: a click on a segment seeks to its start (data-start, in seconds).
  await page.getByTestId("ws-audio").waitFor();
  await page.waitForFunction(() => {
    const a = document.querySelector('[data-testid="ws-audio"]') as HTMLAudioElement | null;
    return !!a && a.readyState >= 1 && a.duration > 50;
  });
  const starts = await segmentStarts(page);
  expect(starts.length).toBeGreaterThan(4);
  expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  const third = page.getByTestId("ws-segment").nth(2);
  await third.getByTestId("ws-seek").click();
  expect(Math.abs((await audioTime(page)) - starts[2])).toBeLessThan(0.01);
  expect(await activeIndex(page)).toBe(2);
  await page
    .getByTestId("ws-segment")
    .nth(4)
    .click({ position: { x: 5, y: 5 } });
  expect(Math.abs((await audioTime(page)) - starts[4])).toBeLessThan(0.01);

  // Keys (focus outside the fields): → jumps 5 s, ← back, space plays and pauses.
  await page.getByTestId("ws-keys").click();
  await page.keyboard.press("ArrowRight");
  expect(Math.abs((await audioTime(page)) - (starts[4] + 5))).toBeLessThan(0.01);
  await page.keyboard.press("ArrowLeft");
  expect(Math.abs((await audioTime(page)) - starts[4])).toBeLessThan(0.01);

  // Speed: the chosen rate applies to the player and is kept for the next visit.
  await page.getByTestId("ws-speed").selectOption("1.5");
  expect(await page.$eval('[data-testid="ws-audio"]', (a) => (a as HTMLAudioElement).playbackRate)).toBe(1.5);
  expect(await page.evaluate(() => localStorage.getItem("kikitori.playbackRate"))).toBe("1.5");
  await page.getByTestId("ws-speed").selectOption("1");

  // Ctrl+Space plays and pauses while typing in the interview text (the text is left alone).
  const typingIn = page.getByTestId("ws-interview");
  const before = await typingIn.inputValue();
  await typingIn.focus();
  await page.$eval('[data-testid="ws-audio"]', (a) => {
    (a as HTMLAudioElement).muted = true;
  });
  await page.keyboard.press("Control+Space");
  await page.waitForFunction(() => !(document.querySelector('[data-testid="ws-audio"]') as HTMLAudioElement).paused);
  await page.keyboard.press("Control+Space");
  await page.waitForFunction(() => (document.querySelector('[data-testid="ws-audio"]') as HTMLAudioElement).paused);
  expect(await typingIn.inputValue()).toBe(before);
  await page.getByTestId("ws-segment").nth(4).getByTestId("ws-seek").click();
  await page.$eval('[data-testid="ws-audio"]', (a) => (a as HTMLAudioElement).pause());

  // Find in the transcript: matches are marked, Enter goes to the next one and plays from there.
  await page.getByTestId("ws-find").fill("BUSINESS");
  const hits = await page.$$eval('[data-testid="ws-segment"][data-match="true"]', (els) =>
    els.map((e) => Number(e.getAttribute("data-start"))),
  );
  expect(hits.length).toBeGreaterThan(0);
  expect(Number(await page.getByTestId("ws-find-count").getAttribute("data-count"))).toBe(hits.length);
  await page.getByTestId("ws-find").press("Enter");
  expect(Math.abs((await audioTime(page)) - hits[0])).toBeLessThan(0.01);
  await page.getByTestId("ws-find").fill("");

  // Playing from the start marks the segments in order.
  await page.getByTestId("ws-segment").nth(0).getByTestId("ws-seek").click();
  await page.$eval('[data-testid="ws-audio"]', (a) => {
    (a as HTMLAudioElement).muted = true;
    (a as HTMLAudioElement).playbackRate = 4;
  });
  await page.getByTestId("ws-keys").click();
  await page.keyboard.press("Space");
  const seen: number[] = [];
  const until = Math.min(starts[4] + 1, 40);
  for (let i = 0; i < 200 && (await audioTime(page)) < until; i++) {
    const idx = await activeIndex(page);
    if (idx >= 0 && seen.at(-1) !== idx) seen.push(idx);
    await page.waitForTimeout(50);
  }
  await page.keyboard.press("Space");
  expect(await page.$eval('[data-testid="ws-audio"]', (a) => (a as HTMLAudioElement).paused)).toBe(true);
  expect(seen.length).toBeGreaterThanOrEqual(3);
  expect([...seen].sort((a, b) => a - b)).toEqual(seen);

  // Rename the interviewee and edit a sentence of the transcript and of the interview.
  const original = await page.getByTestId("ws-interview").inputValue();
  const panel = page.getByTestId("tx-speakers-panel");
  await panel.locator('[data-role="interviewee"] input').fill("Dr. Tanaka");
  await page.getByTestId("tx-speakers-save").click();
  await page.waitForFunction(() =>
    /^Dr\. Tanaka:/m.test((document.querySelector('[data-testid="ws-interview"]') as HTMLTextAreaElement).value),
  );
  const tanaka = (await panel.locator('[data-role="interviewee"]').getAttribute("data-testid"))?.replace(
    "tx-speaker-",
    "",
  );
  await editTranscript(page);
  const firstText = page.getByTestId("ws-segment-text").first();
  await firstText.fill("Welcome to the Kikitori workspace test.");
  // Give the first turn to Dr. Tanaka (a drop-down on the turn: the interviewee's id).
  const firstTurn = page.getByTestId("ws-segment").first().getByTestId("ws-speaker");
  await firstTurn.selectOption(tanaka ?? "");
  const interview = page.getByTestId("ws-interview");
  await interview.press("Control+End");
  await interview.pressSequentially("\n\nAnna: Thank you for your time.");
  await page.locator('[data-testid="ws-save-state"][data-state="unsaved"]').waitFor();
  await waitSaved(page);
  // The interview text follows the transcript: the first turn is written again, now Dr. Tanaka's
  // with the new words; the paragraph typed into the interview stays.
  await page.locator('[data-testid="ws-sync"][data-state="in-sync"]').waitFor({ timeout: 60_000 });
  const edited = await interview.inputValue();
  expect(edited).toMatch(/Thank you for your time\.$/);
  expect(edited).toMatch(/^Dr\. Tanaka: Welcome to the Kikitori workspace test\./m);

  // The exports have both changes: DOCX (read back with mammoth), SRT and WebVTT (a subtitle parser).
  const download = async (text: "transcript" | "interview", format: string) => {
    await page.getByTestId("tx-export-text").selectOption(text);
    await page.getByTestId("tx-export-format").selectOption(format);
    const [file] = await Promise.all([page.waitForEvent("download"), page.getByTestId("tx-export-download").click()]);
    return { name: file.suggestedFilename(), data: readFileSync((await file.path()) as string) };
  };
  const docx = await download("interview", "docx");
  expect(docx.name).toBe("interview-en – interview.docx");
  const { value: docxText } = await mammoth.extractRawText({ buffer: docx.data });
  const words = (s: string) => s.replace(/\s+/g, " ").trim();
  expect(words(docxText)).toContain(words(edited));
  expect(docxText).toMatch(/Dr\. Tanaka:/);
  for (const format of ["srt", "vtt"]) {
    const file = await download("transcript", format);
    const cues = parseSync(file.data.toString("utf8")).filter((n) => n.type === "cue");
    expect(cues.length).toBeGreaterThanOrEqual(starts.length);
    const texts = cues.map((c) => (c.data as { text: string }).text).join("\n");
    expect(texts).toContain("Welcome to the Kikitori workspace test.");
    // The first cue is Dr. Tanaka's now.
    expect((cues[0].data as { text: string }).text).toMatch(/^(Dr\. Tanaka: |<v Dr\. Tanaka>)Welcome/);
    expect(texts).toContain("Dr. Tanaka");
  }

  // A second tab on an older version: its edit is refused with a clear message, nothing is overwritten.
  const tab2 = await ctx.newPage();
  await tab2.goto(`${t.url}/en/transcriptions/${jobId}`);
  await tab2.getByTestId("ws-interview").waitFor({ timeout: 60_000 });
  await page.getByTestId("ws-title").fill("Bakery founders");
  await waitSaved(page);
  await tab2.getByTestId("ws-interview").press("Control+End");
  await tab2.getByTestId("ws-interview").pressSequentially(" Stale words.");
  const conflict = tab2.locator('[data-testid="ws-save-state"][data-state="conflict"]');
  await conflict.waitFor();
  expect(await conflict.textContent()).toMatch(/changed in another tab/);
  const row = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  expect(row.rewrittenText).not.toContain("Stale words.");
  expect(row.title).toBe("Bakery founders");
  await tab2.getByTestId("ws-reload").click();
  await tab2.locator('[data-testid="ws-save-state"][data-state="saved"]').waitFor();
  expect(await tab2.getByTestId("ws-title").inputValue()).toBe("Bakery founders");
  await tab2.close();

  // The original AI output is kept and comes back as a new version (the title stays).
  await page.reload();
  await page.getByTestId("ws-versions").locator('[data-testid="ws-version"]').first().waitFor();
  const originalRow = page.locator('[data-testid="ws-version"][data-kind="original"]');
  await originalRow.getByTestId("ws-restore").click();
  await page.locator('[data-testid="ws-version"][data-kind="restore"]').waitFor();
  expect(await page.getByTestId("ws-interview").inputValue()).toBe(original);
  expect(await page.getByTestId("ws-title").inputValue()).toBe("Bakery founders");

  // The fidelity view: a figure, and the diff both ways (the report is computed on opening: a
  // busy CI machine with every suite running may take longer than the default 30 s).
  await page.getByTestId("ws-fidelity-open").click();
  const figure = Number(await page.getByTestId("ws-fidelity-figure").getAttribute("data-value", { timeout: 90_000 }));
  expect(figure).toBeGreaterThan(0.5);
  expect(figure).toBeLessThanOrEqual(1);

  // Search: a Japanese word inside a Japanese transcript (no spaces), and only that job.
  const store = createObjectStore(loadGatewayConfig(t.env));
  await insertJob(t.db, user.uid, {
    id: randomUUID(),
    status: "completed",
    originalName: "osaka.m4a",
    audioLanguage: "ja",
    transcription: "えーと、大阪でパン屋を始めたのは二〇一九年です。",
    rewrittenText: "大阪でパン屋を始めたのは二〇一九年です。",
  });
  await page.goto(`${t.url}/en/transcriptions`);
  await page.getByTestId("lib-search").fill("パン屋");
  await page.locator('[data-testid="lib-count"][data-total="1"]').waitFor();
  expect(await page.getByTestId("lib-open").allTextContents()).toEqual(["osaka.m4a"]);
  // The passage the word was found in, with the word marked.
  expect(await page.getByTestId("lib-snippet").textContent()).toBe("大阪でパン屋を始めたのは二〇一九年です。");
  expect(await page.getByTestId("lib-snippet").locator("mark").allTextContents()).toEqual(["パン屋"]);
  expect(page.url()).toContain(`q=${encodeURIComponent("パン屋")}`);
  await page.getByTestId("lib-search").fill("");
  await page.locator('[data-testid="lib-count"][data-total="2"]').waitFor();

  // Delete from the library: the job, its audio and its chunks leave the store.
  const audioKey = (await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).audioKey;
  const chunkKeys = (await t.db.transcriptChunk.findMany({ where: { jobId } })).map((c) => c.objectKey);
  expect(await store.stat(audioKey)).not.toBeNull();
  const mine = page.locator(`[data-testid="lib-item"][data-job-id="${jobId}"]`);
  expect(await mine.getByTestId("lib-open").textContent()).toBe("Bakery founders");
  await mine.getByTestId("lib-delete").click();
  await mine.getByTestId("lib-delete-confirm").click();
  await page.locator('[data-testid="lib-count"][data-total="1"]').waitFor();
  expect(await store.stat(audioKey)).toBeNull();
  for (const key of chunkKeys) expect(await store.stat(key)).toBeNull();
  expect(await t.db.transcriptionJob.count({ where: { id: jobId } })).toBe(0);
  await ctx.close();
});

it("after the audio expired the page says so and the texts stay editable", async () => {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const jobId = await insertJob(t.db, user.uid, {
    status: "completed",
    audioDeletedAt: new Date(),
    audioExpiresAt: new Date(Date.now() - 1000),
    segments: [{ start: 0, end: 2, text: "Hello there." }],
    transcription: "Hello there.",
    rewrittenText: "Hello there.",
  });
  const ctx = await browser.newContext({ locale: "en-US" });
  const page = await ctx.newPage();
  await login(page, user.email);
  await page.goto(`${t.url}/en/transcriptions/${jobId}`);
  await page.getByTestId("ws-audio-gone").waitFor();
  expect(await page.getByTestId("ws-audio").count()).toBe(0);
  await editTranscript(page);
  await page.getByTestId("ws-segment-text").first().fill("Hello again.");
  await waitSaved(page);
  expect((await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).transcription).toBe("Hello again.");
  await ctx.close();
});
