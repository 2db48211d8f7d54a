import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium, type LaunchOptions, type Page } from "playwright-core";
import { freePort, type ServiceProcess, startLocalBilling, stopService } from "../infra/service-process.ts";
import { startTestGateway, type TestGateway } from "./gateway.ts";
import { startWorker } from "./pipeline.ts";

/** Debian's Chromium, headless, with the flags this closed network needs. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium`);
  return chromium.launch({
    ...options,
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      ...(options.args ?? []),
    ],
  });
}

/**
 * For an e2e file: before all its tests, a gateway (on a known port) and Chromium, with the
 * transcription and text workers (`workers`: no Whisper model, as on a machine without network,
 * so English goes through pocketsphinx) and/or the local billing service (`billing`); after them,
 * everything stopped. `browserArgs` are extra Chromium flags (e.g. a fake microphone). Read `stack.t` and
 * `stack.browser` inside the tests.
 */
export function browserStack(opts: { workers?: boolean; billing?: boolean; browserArgs?: string[] }): {
  t: TestGateway;
  browser: Browser;
} {
  const stack = {} as { t: TestGateway; browser: Browser };
  const services: ServiceProcess[] = [];
  const noModels = mkdtempSync(path.join(os.tmpdir(), "kikitori-no-models-"));
  beforeAll(async () => {
    const billingPort = opts.billing ? await freePort() : 0;
    stack.t = await startTestGateway({
      fixedPort: true,
      ...(opts.billing ? { env: { BILLING_URL: `http://127.0.0.1:${billingPort}` } } : {}),
    });
    if (opts.billing) services.push(await startLocalBilling(stack.t.env, billingPort));
    if (opts.workers) {
      services.push(
        await startWorker(stack.t, "transcription-worker", { MODELS_DIR: noModels }),
        await startWorker(stack.t, "text-worker"),
      );
    }
    stack.browser = await launchBrowser({ args: opts.browserArgs });
  });
  afterAll(async () => {
    await stack.browser?.close();
    for (const s of services) await stopService(s);
    await stack.t?.close();
    rmSync(noModels, { recursive: true, force: true });
  });
  return stack;
}

/**
 * On the job page (which opens in the read view, the words to click): switches the transcript to
 * Edit, as a user does with the Read / Edit switch, and waits for the lines' text fields.
 */
export async function editTranscript(page: Page): Promise<void> {
  const edit = page.getByTestId("ws-view-edit");
  await edit.click();
  await page.locator('[data-testid="ws-view-edit"][aria-pressed="true"]').waitFor();
  await page.locator("textarea.ws-segment-text").first().waitFor();
}
