import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium, type LaunchOptions } from "playwright-core";
import type { ServiceProcess } from "../infra/service-process.ts";
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
    ],
  });
}

/**
 * For an e2e file: before all its tests, a gateway with the transcription and correction workers and
 * Chromium; after them, everything stopped. No Whisper model (as on a machine without network):
 * English goes through pocketsphinx. Read `stack.t` and `stack.browser` inside the tests.
 */
export function browserPipeline(): { t: TestGateway; browser: Browser } {
  const stack = {} as { t: TestGateway; browser: Browser };
  const workers: ServiceProcess[] = [];
  const noModels = mkdtempSync(path.join(os.tmpdir(), "kikitori-no-models-"));
  beforeAll(async () => {
    stack.t = await startTestGateway({ fixedPort: true });
    workers.push(
      await startWorker(stack.t, "transcription-worker", { MODELS_DIR: noModels }),
      await startWorker(stack.t, "correction-worker"),
    );
    stack.browser = await launchBrowser();
  });
  afterAll(async () => {
    await stack.browser?.close();
    for (const w of workers) w.child.kill("SIGTERM");
    await stack.t?.close();
    rmSync(noModels, { recursive: true, force: true });
  });
  return stack;
}
