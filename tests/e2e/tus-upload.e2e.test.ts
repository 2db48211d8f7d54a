/// <reference lib="dom" />
// A recording over 20 MB from the transcription page: a premium user's goes up resumably (tus at
// /api/uploads, in PATCHes, with speed and time left), survives a PATCH that is cut off, and the job
// starts; on the free plan the same file is refused at the drop zone with the plan's limit.
import { jest } from "@jest/globals";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { browserStack } from "../support/browser.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";
import { toneWav } from "../support/wav.ts";

jest.setTimeout(180_000);

const stack = browserStack({});
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

const MiB = 1024 * 1024;

/** A 16-bit mono 16 kHz WAV of about `bytes` bytes: a quiet tone. */
const wav = (bytes: number) => toneWav(bytes);

async function loggedIn(plan: "free" | "premium"): Promise<{ page: Page; uid: string; close: () => Promise<void> }> {
  const user = await createUser(t, { plan });
  await t.db.user.update({
    where: { id: user.uid },
    data: { passwordHash: await hashPassword("a long enough password") },
  });
  const ctx = await browser.newContext({ locale: "en-US" });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill("a long enough password");
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  return { page, uid: user.uid, close: () => ctx.close() };
}

const bigFile = { name: "long-interview.wav", mimeType: "audio/wav", buffer: wav(24 * MiB) };

it("a premium user's 24 MB recording goes up resumably, survives a cut PATCH, and its job starts", async () => {
  const { page, uid, close } = await loggedIn("premium");
  // The drop zone tells the plan's limit once the usage is read.
  await page.getByTestId("tx-dropzone").filter({ hasText: "up to 2 GB" }).waitFor();

  // The first PATCH is cut off: the client asks for the offset and resumes.
  const calls: string[] = [];
  let cut = false;
  await page.route("**/api/uploads/*", async (route) => {
    const method = route.request().method();
    calls.push(method);
    if (method === "PATCH" && !cut) {
      cut = true;
      return route.abort("connectionreset");
    }
    return route.continue();
  });
  await page.getByTestId("tx-file-input").setInputFiles(bigFile);
  await page.getByTestId("tx-model").selectOption("meeting");
  await page.getByTestId("tx-interviewer").fill("Mia");
  await page.getByTestId("tx-submit").click();

  await page.locator('[data-testid="tx-progress"][data-phase="transcribing"]').waitFor({ timeout: 120_000 });
  expect(calls.filter((m) => m === "PATCH").length).toBeGreaterThanOrEqual(3);
  expect(calls).toContain("HEAD");
  const job = await t.db.transcriptionJob.findFirstOrThrow({ where: { userId: uid } });
  expect([job.originalName, job.audioBytes, job.interviewer, job.audioFormat]).toEqual([
    "long-interview.wav",
    bigFile.buffer.length,
    "Mia",
    "wav",
  ]);
  const upload = await t.db.upload.findFirstOrThrow({ where: { userId: uid } });
  expect(upload.jobId).toBe(job.id);
  await close();
});

it("shows the speed and the time left while a large file goes up", async () => {
  const { page, close } = await loggedIn("premium");
  await page.getByTestId("tx-dropzone").filter({ hasText: "up to 2 GB" }).waitFor();
  // A slow line (about 6 MB/s up), so the upload lasts a few seconds.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 20,
    downloadThroughput: -1,
    uploadThroughput: 6 * MiB,
  });
  await page.getByTestId("tx-file-input").setInputFiles(bigFile);
  await page.getByTestId("tx-model").selectOption("meeting");
  await page.getByTestId("tx-submit").click();
  const speed = page.getByTestId("tx-upload-speed");
  await speed.waitFor({ timeout: 30_000 });
  expect(await speed.textContent()).toMatch(/MB per second/);
  await page.getByTestId("tx-upload-eta").waitFor({ timeout: 10_000 });
  await page.locator('[data-testid="tx-progress"][data-phase="transcribing"]').waitFor({ timeout: 120_000 });
  await close();
});

it("on the free plan the same file is refused at the drop zone with the 20 MB limit", async () => {
  const { page, close } = await loggedIn("free");
  await page.getByTestId("tx-file-input").setInputFiles(bigFile);
  expect(await page.getByTestId("tx-file-error").textContent()).toMatch(/20 MB/);
  expect(await page.getByTestId("tx-dropzone").textContent()).toMatch(/up to 20 MB/);
  await close();
});
