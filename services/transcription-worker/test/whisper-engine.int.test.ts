// The whisper engine's load and run path on whisper.cpp's own test model (real ggml format, no real
// weights: the text is empty), in its child process: it loads, runs, detects a language, never
// blocks the event loop, and cancel / time-out really stop the work.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { ffmpegPath } from "@kikitori/shared/server";
import { WhisperEngine } from "../src/engines/whisper.ts";

jest.setTimeout(120_000);

const ROOT = path.resolve(import.meta.dirname, "../../..");
const TEST_MODEL = path.join(ROOT, "tests/fixtures/models/for-tests-ggml-tiny.bin");
const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-whisper-"));
const wav = path.join(dir, "speech.wav");

beforeAll(() => {
  execFileSync(ffmpegPath(), [
    "-v",
    "error",
    "-y",
    "-i",
    path.join(ROOT, "tests/fixtures/audio/interview-en.mp3"),
    "-t",
    "8",
    "-ac",
    "1",
    "-ar",
    "16000",
    wav,
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const engine = (over: Partial<ConstructorParameters<typeof WhisperEngine>[0]> = {}) =>
  new WhisperEngine({ modelPath: TEST_MODEL, modelName: "test", processes: 1, threads: 2, timeoutMs: 60_000, ...over });

/** Largest delay of a 20 ms timer while `work` runs: how long the event loop was blocked. */
async function maxLag<T>(work: Promise<T>): Promise<{ result: T; lagMs: number }> {
  let lag = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 20);
    last = now;
  }, 20);
  try {
    return { result: await work, lagMs: lag };
  } finally {
    clearInterval(timer);
  }
}

it("loads the model in a child process, transcribes and detects a language without blocking the event loop", async () => {
  const e = engine();
  try {
    await e.check();
    expect(e.name).toBe("whisper:test");
    expect(e.languages).toBe("all"); // the multilingual test model
    const t0 = performance.now();
    const { result, lagMs } = await maxLag(
      e.transcribe(wav, { language: "en", fileType: "meeting", prompt: "Anna, Ben." }),
    );
    const ranMs = performance.now() - t0;
    expect(result.language).toBe("en");
    expect(Array.isArray(result.segments)).toBe(true); // empty: the test model has no real weights
    // Whisper running on this thread would hold the loop for the whole run; on a busy machine the
    // timer may still be late by a few hundred ms, never by most of the run.
    expect(lagMs).toBeLessThan(Math.max(250, ranMs / 2));
    const detected = await e.detectLanguage(wav);
    expect(detected).toMatch(/^[a-z]{2,3}$/);
  } finally {
    await e.close();
  }
});

it("stops a running chunk at once when aborted, and the next chunk gets a fresh process", async () => {
  const e = engine();
  try {
    await e.check();
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 200);
    await expect(e.transcribe(wav, { language: "en", fileType: "meeting", signal: ac.signal })).rejects.toMatchObject({
      code: "TRANSCRIPTION_FAILED",
      message: "transcription cancelled",
      retryable: true,
    });
    expect(Date.now() - t0).toBeLessThan(1_500);
    const again = await e.transcribe(wav, { language: "de", fileType: "meeting" });
    expect(again.language).toBe("de");
  } finally {
    await e.close();
  }
});

it("kills a chunk past its time limit and fails it as retryable", async () => {
  const e = engine({ timeoutMs: 300 });
  try {
    await e.check();
    await expect(e.transcribe(wav, { language: "en", fileType: "meeting" })).rejects.toMatchObject({
      code: "TRANSCRIPTION_FAILED",
      retryable: true,
      message: expect.stringContaining("longer than 300 ms"),
    });
  } finally {
    await e.close();
  }
});

it("refuses a corrupt model at the start-up check with a clear message", async () => {
  const bad = path.join(dir, "ggml-broken.bin");
  writeFileSync(bad, Buffer.alloc(4096, 7));
  const e = engine({ modelPath: bad });
  try {
    await expect(e.check()).rejects.toThrow(/could not load the Whisper model .*ggml-broken\.bin/);
  } finally {
    await e.close();
  }
});
