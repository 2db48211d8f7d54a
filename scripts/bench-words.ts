/// <reference lib="dom" />
// The job page with a long transcript in headless Chromium, measured (a script, not a test):
//   npm run bench:words                        (BENCH_WORDS=20000, BENCH_MOVES=60; TEST_WEB_DIST_DIR)
// A finished job of BENCH_WORDS words (lines of 4 to 19 words, 0.3 s a word, the engine's word times)
// with a silent recording as long, on a real gateway. Measured:
//   1. opening the job page: navigation → every line shown, in the edit view (fields) and the read
//      view (every word an element), and switching from editing to reading (the words rendered);
//   2. moving the marked word: the player set to a word elsewhere in the transcript → the word marked
//      (from the 'seeked' event to the DOM change, and to the next frame), median and worst of
//      BENCH_MOVES jumps;
//   3. playing for 10 s: the longest task and the tasks over 50 ms while the mark follows the audio.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createObjectStore, ffmpegPath } from "@kikitori/shared/server";
import type { Page } from "playwright-core";
import { hashPassword } from "../services/gateway/src/auth/passwords.ts";
import { loadGatewayConfig } from "../services/gateway/src/config.ts";
import { launchBrowser } from "../tests/support/browser.ts";
import { insertJob, insertVerifiedUser } from "../tests/support/db.ts";
import { startTestGateway } from "../tests/support/gateway.ts";
import { startS3Standin } from "../tests/support/global-setup.ts";

const WORDS = Number(process.env.BENCH_WORDS ?? 20_000);
const MOVES = Number(process.env.BENCH_MOVES ?? 60);
const WORD_SECONDS = 0.3;
const PASSWORD = "a long enough password";
const VOCABULARY = "the bakery opened early every morning and we baked bread for the whole street".split(" ");

/** Lines of 4 to 19 words with the engine's word times, speakers taking turns every few lines. */
function transcript(words: number) {
  const segments: Array<{
    start: number;
    end: number;
    text: string;
    speaker: number;
    words: Array<{ start: number; end: number; text: string }>;
  }> = [];
  let n = 0;
  while (n < words) {
    const count = Math.min(words - n, 4 + ((segments.length * 7) % 16));
    const ws = Array.from({ length: count }, (_, k) => {
      const start = Math.round((n + k) * WORD_SECONDS * 1000) / 1000;
      return {
        start,
        end: Math.round((start + WORD_SECONDS) * 1000) / 1000,
        text: VOCABULARY[(n + k) % VOCABULARY.length],
      };
    });
    const text = `${ws.map((w) => w.text).join(" ")}.`;
    segments.push({
      start: ws[0].start,
      end: ws[count - 1].end,
      text,
      speaker: Math.floor(segments.length / 3) % 2,
      words: ws,
    });
    n += count;
  }
  return segments;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** Navigation → every line (and, reading, every word) shown; the ms since the page's time origin. */
async function openPage(page: Page, url: string, view: "edit" | "read", lines: number) {
  await page.evaluate((v) => localStorage.setItem("kikitori.transcriptView", v), view);
  await page.goto(url);
  await page.waitForFunction(
    ({ lines, words }) =>
      document.querySelectorAll('[data-testid="ws-segment"]').length === lines &&
      document.querySelectorAll('[data-testid="ws-word"]').length === words,
    { lines, words: view === "read" ? WORDS : 0 },
    { polling: "raf", timeout: 120_000 },
  );
  return page.evaluate(() => performance.now());
}

/** Editing → reading: from the click to the words in the DOM, and to the next frame painted. */
async function switchToRead(page: Page) {
  return page.evaluate(async (words) => {
    const button = document.querySelector<HTMLButtonElement>('[data-testid="ws-view-read"]');
    if (!button) throw new Error("no view switch");
    const t0 = performance.now();
    button.click();
    while (document.querySelectorAll('[data-testid="ws-word"]').length !== words) {
      await new Promise((r) => setTimeout(r, 0));
    }
    const dom = performance.now() - t0;
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    return { dom, frame: performance.now() - t0 };
  }, WORDS);
}

/**
 * Sets the player to `start + 0.1` and times the mark's move to that word: from the player's event
 * that gave the page the new position (timeupdate or seeked, whichever came last) to the DOM change
 * and to the next frame painted; and from setting the position (the media seek included) to the frame.
 */
async function moveMark(page: Page, start: number) {
  return page.evaluate(async (start) => {
    const audio = document.querySelector<HTMLAudioElement>('[data-testid="ws-audio"]');
    const list = document.querySelector('[data-testid="ws-segments"]');
    if (!audio || !list) throw new Error("no player or list");
    let eventAt = 0;
    const onEvent = () => {
      eventAt = performance.now();
    };
    audio.addEventListener("timeupdate", onEvent);
    audio.addEventListener("seeked", onEvent);
    const marked = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no mark at ${start}`)), 10_000);
      // The records themselves, not a query of the list: the measuring must not add to what it measures.
      const observer = new MutationObserver((records) => {
        const on = records.some((r) => {
          const el = r.target as HTMLElement;
          return el.getAttribute("aria-current") === "true" && Number(el.dataset.start) === start;
        });
        if (on) {
          observer.disconnect();
          clearTimeout(timer);
          resolve(performance.now());
        }
      });
      observer.observe(list, { subtree: true, attributes: true, attributeFilter: ["aria-current"] });
    });
    const setAt = performance.now();
    audio.currentTime = start + 0.1;
    const domAt = await marked;
    const from = eventAt;
    audio.removeEventListener("timeupdate", onEvent);
    audio.removeEventListener("seeked", onEvent);
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    const now = performance.now();
    return { dom: domAt - from, frame: now - from, seek: now - setAt };
  }, start);
}

/** Plays for `seconds` and reports the tasks the page ran meanwhile over 50 ms, and the longest. */
async function playAlong(page: Page, seconds: number) {
  return page.evaluate(async (seconds) => {
    const audio = document.querySelector<HTMLAudioElement>('[data-testid="ws-audio"]');
    if (!audio) throw new Error("no player");
    const tasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push(e.duration);
    });
    observer.observe({ type: "longtask" });
    const marks = new Set<string>();
    const list = document.querySelector('[data-testid="ws-segments"]');
    const watch = new MutationObserver(() => {
      const on = list?.querySelector<HTMLElement>('[data-testid="ws-word"][aria-current="true"]');
      if (on?.dataset.start) marks.add(on.dataset.start);
    });
    if (list) watch.observe(list, { subtree: true, attributes: true, attributeFilter: ["aria-current"] });
    audio.muted = true;
    await audio.play();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    audio.pause();
    observer.disconnect();
    watch.disconnect();
    return { longTasks: tasks.length, longest: Math.max(0, ...tasks), wordsMarked: marks.size };
  }, seconds);
}

const s3 = await startS3Standin();
const t = await startTestGateway({ fixedPort: true });
const tmp = mkdtempSync(path.join(os.tmpdir(), "kikitori-bench-words-"));
const browser = await launchBrowser();
try {
  const segments = transcript(WORDS);
  const duration = segments.at(-1)?.end ?? 0;
  const mp3 = path.join(tmp, "silence.mp3");
  execFileSync(ffmpegPath(), [
    ...["-loglevel", "error", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", String(Math.ceil(duration) + 5)],
    ...["-c:a", "libmp3lame", "-b:a", "8k", mp3],
  ]);
  const audio = readFileSync(mp3);
  const { uid, email } = await insertVerifiedUser(t.db);
  await t.db.user.update({ where: { id: uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const jobId = await insertJob(t.db, uid, {
    status: "completed",
    title: "A long interview",
    audioBytes: audio.length,
    durationSeconds: duration,
    detectedLanguage: "en",
    audioLanguage: "en",
    segments,
    transcription: segments.map((s) => s.text).join(" "),
    rewrittenText: "",
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
  });
  const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  await createObjectStore(loadGatewayConfig(t.env)).put(job.audioKey, audio, audio.length, "audio/mpeg");

  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  // tsx names the functions inside page.evaluate with a helper the page lacks.
  await ctx.addInitScript("globalThis.__name = (f) => f");
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  const url = `${t.url}/en/transcriptions/${jobId}`;
  console.log(`${WORDS} words in ${segments.length} lines, ${(duration / 60).toFixed(0)} min of audio`);

  for (const view of ["edit", "read", "edit", "read"] as const) {
    console.log(`open, ${view} view: ${ms(await openPage(page, url, view, segments.length))} from navigation`);
  }
  await openPage(page, url, "edit", segments.length);
  const switched = await switchToRead(page);
  console.log(`edit → read: words in the DOM ${ms(switched.dom)}, painted ${ms(switched.frame)}`);

  await page.waitForFunction(
    () => (document.querySelector<HTMLAudioElement>('[data-testid="ws-audio"]')?.readyState ?? 0) >= 1,
  );
  const all = segments.flatMap((s) => s.words);
  const dom: number[] = [];
  const frame: number[] = [];
  const seek: number[] = [];
  for (let k = 0; k < MOVES; k++) {
    const word = all[((k + 1) * 7919) % all.length];
    const moved = await moveMark(page, word.start);
    dom.push(moved.dom);
    frame.push(moved.frame);
    seek.push(moved.seek);
  }
  const stat = (xs: number[]) => `median ${ms(median(xs))}, worst ${ms(Math.max(...xs))}`;
  console.log(`move the marked word (${MOVES} jumps across the transcript):`);
  console.log(`  player event → word marked in the DOM: ${stat(dom)}; → painted: ${stat(frame)}`);
  console.log(`  position set (media seek included) → painted: ${stat(seek)}`);
  const played = await playAlong(page, 10);
  console.log(
    `10 s of playing: ${played.wordsMarked} words marked in turn, ${played.longTasks} tasks over 50 ms (longest ${ms(played.longest)})`,
  );
  await ctx.close();
} finally {
  await browser.close();
  await t.close();
  await s3.close();
  rmSync(tmp, { recursive: true, force: true });
}
