/// <reference lib="dom" />
// Recording in the browser: Chromium's fake microphone plays speech (the first 30 s of the interview
// fixture, looped), the recorder records it with MediaRecorder, keeps every chunk in IndexedDB, and the
// recording is transcribed through the same form as an upload.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { ffmpegPath } from "@kikitori/shared/server";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { apiCall } from "../support/api.ts";
import { browserStack } from "../support/browser.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";

jest.setTimeout(180_000);

// The fake microphone's sound: made before Chromium starts (it reads the file at launch).
const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-recorder-e2e-"));
const speech = path.join(dir, "speech.wav");
execFileSync(ffmpegPath(), [
  ...["-v", "error", "-y", "-i", path.resolve(import.meta.dirname, "../fixtures/audio/interview-en.mp3")],
  ...["-t", "30", "-ar", "48000", "-ac", "1", "-c:a", "pcm_s16le", speech],
]);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stack = browserStack({
  workers: true,
  browserArgs: [
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${speech}`,
    "--autoplay-policy=no-user-gesture-required",
  ],
});
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

async function loggedIn() {
  const user = await createUser(t);
  await t.db.user.update({
    where: { id: user.uid },
    data: { passwordHash: await hashPassword("a long enough password") },
  });
  // The app's Content-Security-Policy allows no inline script: axe is injected past it.
  const ctx = await browser.newContext({ locale: "en-US", bypassCSP: true });
  await ctx.grantPermissions(["microphone"], { origin: t.url });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill("a long enough password");
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  return { ctx, page, uid: user.uid, token: user.token };
}

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** The serious and critical axe-core violations of the page as it is (rule, elements and why). */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v: { impact: string | null }) => v.impact === "serious" || v.impact === "critical")
      .map(
        (v: { id: string; nodes: { target: string[]; failureSummary?: string }[] }) =>
          `${v.id}: ${v.nodes.map((n) => `${n.target.join(" ")} ${n.failureSummary}`).join("; ")}`,
      );
  });
}

const button = (page: Page, name: string) => page.getByRole("button", { name, exact: true });

/** The elapsed time the recorder shows, in seconds. */
async function elapsed(page: Page): Promise<number> {
  const text = (await page.getByTestId("rec-elapsed").textContent()) ?? "";
  const m = /(\d+):(\d\d)$/.exec(text.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : -1;
}

async function waitElapsed(page: Page, seconds: number) {
  await page.waitForFunction((s) => {
    const m = /(\d+):(\d\d)$/.exec(document.querySelector('[data-testid="rec-elapsed"]')?.textContent?.trim() ?? "");
    return !!m && Number(m[1]) * 60 + Number(m[2]) >= s;
  }, seconds);
}

/** The recordings kept in this page's IndexedDB: their state, parts and chunk count. */
function keptInBrowser(page: Page) {
  return page.evaluate(
    () =>
      new Promise<{ state: string; parts: number; bytes: number; chunks: number }[]>((resolve, reject) => {
        const req = indexedDB.open("kikitori-recorder");
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const tx = req.result.transaction(["recordings", "chunks"], "readonly");
          const recs = tx.objectStore("recordings").getAll();
          const chunks = tx.objectStore("chunks").count();
          tx.oncomplete = () => {
            req.result.close();
            resolve(
              recs.result.map((r) => ({
                state: r.state,
                parts: r.parts.length,
                bytes: r.bytes,
                chunks: chunks.result,
              })),
            );
          };
        };
      }),
  );
}

async function transcriptText(page: Page): Promise<string> {
  const el = page.getByTestId("tx-transcript");
  await el.waitFor({ timeout: 150_000 });
  await page.waitForFunction(
    () => {
      const e = document.querySelector('[data-testid="tx-transcript"]') as HTMLTextAreaElement | HTMLElement | null;
      const text = e && "value" in e ? e.value : e?.textContent;
      return !!text && text.trim().length > 0;
    },
    undefined,
    { timeout: 150_000 },
  );
  return ((await el.textContent()) || (await el.inputValue().catch(() => ""))).trim();
}

it("records 12 s with Record, Pause/Resume and Stop, plays it back, and Transcribe recording completes the job", async () => {
  const { ctx, page, uid } = await loggedIn();
  await button(page, "Record audio").click();
  await button(page, "Record").click();
  await waitElapsed(page, 2);

  // The level meter moves with the speech.
  await page.waitForFunction(() => {
    const m = document.querySelector('[data-testid="rec-meter"]') as HTMLMeterElement | null;
    return !!m && m.value > 5;
  });

  // Paused, the clock stands still.
  await button(page, "Pause").click();
  const pausedAt = await elapsed(page);
  await page.waitForTimeout(1500);
  expect(await elapsed(page)).toBe(pausedAt);
  await button(page, "Resume").click();

  await waitElapsed(page, 12);
  // Each second's chunk is already kept in the browser while recording.
  const during = await keptInBrowser(page);
  expect(during).toHaveLength(1);
  expect(during[0]).toMatchObject({ state: "recording", parts: 1 });
  expect(during[0]!.chunks).toBeGreaterThanOrEqual(8);

  await button(page, "Stop").click();
  await page.getByTestId("rec-review").waitFor();
  expect(await elapsed(page)).toBeGreaterThanOrEqual(12);
  expect(await page.getByTestId("rec-review").textContent()).toMatch(/Recording \d{4}-\d\d-\d\d \d\d-\d\d\.webm/);
  // The recording plays back in the page.
  const played = await page.evaluate(async () => {
    const a = document.querySelector('[data-testid="rec-audio"]') as HTMLAudioElement;
    a.muted = true;
    await a.play();
    await new Promise((r) => setTimeout(r, 600));
    a.pause();
    return a.currentTime;
  });
  expect(played).toBeGreaterThan(0.2);
  expect((await keptInBrowser(page))[0]).toMatchObject({ state: "stopped", parts: 1 });

  await button(page, "Transcribe recording").click();
  expect(await transcriptText(page)).not.toBe("");
  await page.locator('[data-testid="tx-progress"][data-phase="complete"]').waitFor({ timeout: 150_000 });

  const job = await t.db.transcriptionJob.findFirstOrThrow({ where: { userId: uid } });
  expect(job.status).toBe("completed");
  expect(job.audioFormat).toBe("webm");
  expect(job.originalName).toMatch(/^Recording \d{4}-\d\d-\d\d \d\d-\d\d\.webm$/);
  expect(job.durationSeconds).toBeGreaterThan(11);
  expect(job.durationSeconds).toBeLessThan(15);
  // Accepted for transcription: no longer kept in the browser.
  expect(await keptInBrowser(page)).toEqual([]);
  expect(await page.getByTestId("rec-review").textContent()).toMatch(/sent for transcription/);
  await ctx.close();
});

it("a reload mid-recording keeps what was recorded and offers to transcribe it", async () => {
  const { ctx, page, uid } = await loggedIn();
  await button(page, "Record audio").click();
  await button(page, "Record").click();
  await waitElapsed(page, 5);

  // Leaving while recording asks first.
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.type());
    void d.accept();
  });
  await page.reload();
  expect(dialogs).toEqual(["beforeunload"]);

  // The page opens on the recorder with the offer.
  const offer = page.getByTestId("rec-kept");
  await offer.waitFor();
  expect(await offer.textContent()).toMatch(/was cut off when the page closed/);
  expect(await page.getByTestId("tx-source-record").getAttribute("aria-pressed")).toBe("true");
  for (const name of ["Resume recording", "Transcribe what was kept", "Discard"]) {
    expect(await button(page, name).isVisible()).toBe(true);
  }
  const kept = await keptInBrowser(page);
  expect(kept).toHaveLength(1);
  expect(kept[0]!.chunks).toBeGreaterThanOrEqual(3);

  // What was kept is a valid recording: the server decodes it and the job completes.
  await button(page, "Transcribe what was kept").click();
  await transcriptText(page);
  await page.locator('[data-testid="tx-progress"][data-phase="complete"]').waitFor({ timeout: 150_000 });
  const job = await t.db.transcriptionJob.findFirstOrThrow({ where: { userId: uid } });
  expect(job.durationSeconds).toBeGreaterThan(3);
  expect(job.durationSeconds).toBeLessThan(8);
  expect(await keptInBrowser(page)).toEqual([]);
  await ctx.close();
});

it("Resume recording adds a part; the parts are joined into the whole recording; Discard forgets it", async () => {
  const { ctx, page } = await loggedIn();
  await button(page, "Record audio").click();
  await button(page, "Record").click();
  await waitElapsed(page, 3);
  page.on("dialog", (d) => void d.accept());
  await page.reload();
  await page.getByTestId("rec-kept").waitFor();
  expect(await axeViolations(page)).toEqual([]);

  await button(page, "Resume recording").click();
  await page.getByTestId("rec-live").waitFor();
  expect(await axeViolations(page)).toEqual([]);
  // The clock goes on from what was kept.
  expect(await elapsed(page)).toBeGreaterThanOrEqual(2);
  await waitElapsed(page, 6);
  await button(page, "Stop").click();

  const review = page.getByTestId("rec-review");
  await review.waitFor();
  // The whole recording (the two parts joined) comes first and is chosen; each part stays choosable.
  const radios = review.getByRole("radio");
  expect(await radios.count()).toBe(3);
  expect(await radios.nth(0).isChecked()).toBe(true);
  expect(await radios.nth(0).evaluate((r) => r.closest("label")?.textContent)).toMatch(/^Whole recording \(/);
  const text = (await review.textContent()) ?? "";
  expect(text).toMatch(/Recording \d{4}-\d\d-\d\d \d\d-\d\d\.webm/);
  expect(text).toMatch(/Recording \d{4}-\d\d-\d\d \d\d-\d\d \(2\)\.webm/);
  expect(await page.getByTestId("rec-audio").count()).toBe(3);
  expect((await keptInBrowser(page))[0]).toMatchObject({ state: "stopped", parts: 2 });
  expect(await axeViolations(page)).toEqual([]);

  await button(page, "Discard").click();
  await button(page, "Record").waitFor();
  expect(await keptInBrowser(page)).toEqual([]);
  await page.reload();
  await button(page, "Record audio").click();
  await button(page, "Record").waitFor();
  expect(await page.getByTestId("rec-kept").count()).toBe(0);
  await ctx.close();
});

it("a recording resumed after a reload is transcribed as one job of its whole length", async () => {
  const { ctx, page, token } = await loggedIn();
  await button(page, "Record audio").click();
  await button(page, "Record").click();
  await waitElapsed(page, 5);
  // The crash: the page goes away mid-recording.
  page.on("dialog", (d) => void d.accept());
  await page.reload();
  await page.getByTestId("rec-kept").waitFor();
  await button(page, "Resume recording").click();
  await page.getByTestId("rec-live").waitFor();
  await waitElapsed(page, 11);
  await button(page, "Stop").click();
  await page.getByTestId("rec-review").waitFor();
  const shown = await elapsed(page);

  // The joined recording plays back past the first part's end.
  const playable = await page.evaluate(async () => {
    const a = document.querySelector('[data-testid="rec-audio"]') as HTMLAudioElement;
    a.muted = true;
    await a.play();
    a.currentTime = 7;
    await new Promise((r) => setTimeout(r, 600));
    a.pause();
    return a.currentTime;
  });
  expect(playable).toBeGreaterThan(7);

  await button(page, "Transcribe recording").click();
  await transcriptText(page);
  await page.locator('[data-testid="tx-progress"][data-phase="complete"]').waitFor({ timeout: 150_000 });
  const list = await apiCall(t, token, "/api/transcriptions");
  expect(list.status).toBe(200);
  const jobs = list.body.jobs as { jobId: string }[];
  expect(jobs).toHaveLength(1);
  const job = await apiCall(t, token, `/api/transcriptions/${jobs[0]!.jobId}`);
  expect(job.body.status).toBe("completed");
  expect(job.body.originalName).toMatch(/^Recording \d{4}-\d\d-\d\d \d\d-\d\d\.webm$/);
  // Both parts, one job: about the time the recorder showed (each part ends within its last second).
  expect(job.body.durationSeconds).toBeGreaterThan(shown - 2);
  expect(job.body.durationSeconds).toBeLessThan(shown + 2);
  expect(await keptInBrowser(page)).toEqual([]);
  expect(await page.getByTestId("rec-review").textContent()).toMatch(/sent for transcription/);
  await ctx.close();
});

it("a blocked microphone, a browser without MediaRecorder and an empty recording each get a clear message", async () => {
  const { ctx, page } = await loggedIn();
  await button(page, "Record audio").click();

  // Nothing recorded yet: the form says what to do instead of "file not selected".
  await page.getByTestId("tx-model").selectOption("meeting");
  await button(page, "Transcribe recording").click();
  expect(await page.getByRole("alert").filter({ hasText: "Record something first" }).count()).toBe(1);

  // The browser refuses the microphone (what it does when the user blocked it for the site).
  await page.evaluate(() => {
    navigator.mediaDevices.getUserMedia = () =>
      Promise.reject(new DOMException("Permission denied", "NotAllowedError"));
  });
  await button(page, "Record").click();
  const notice = page.getByTestId("rec-notice");
  await notice.waitFor();
  expect(await notice.getAttribute("data-notice")).toBe("denied");
  expect(await notice.textContent()).toMatch(/Microphone access is blocked/);
  expect(await button(page, "Record").isEnabled()).toBe(true);

  // No microphone at all.
  await page.evaluate(() => {
    navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException("none", "NotFoundError"));
  });
  await button(page, "Record").click();
  await page.locator('[data-testid="rec-notice"][data-notice="noMicrophone"]').waitFor();

  // A browser that cannot record: the button is off and the message says to upload instead.
  const old = await ctx.newPage();
  await old.addInitScript(() => {
    delete (window as any).MediaRecorder;
  });
  await old.goto(`${t.url}/en/transcription`);
  await button(old, "Record audio").click();
  await old.locator('[data-testid="rec-notice"][data-notice="unsupported"]').waitFor();
  expect(await button(old, "Record").isDisabled()).toBe(true);
  expect(await old.getByTestId("rec-notice").textContent()).toMatch(/or upload a file instead/);
  await ctx.close();
});
