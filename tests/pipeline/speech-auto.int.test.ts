// TRANSCRIPTION_ENGINE=auto through the real gateway, worker, Postgres, Redis and S3 server, with the
// generated Parakeet-format and SenseVoice-format models (tests/support/onnx-models.ts) and whisper.cpp's
// test model: GET /api/speech publishes the routes, an English upload is transcribed by Parakeet and a
// Japanese one by SenseVoice, every segment with its words. The words are meaningless (random weights).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import type { ServiceProcess } from "../infra/service-process.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { installSherpaModelDirs } from "../support/onnx-models.ts";
import { createUser, listen, startWorker, upload } from "../support/pipeline.ts";

jest.setTimeout(300_000);

const ROOT = path.resolve(import.meta.dirname, "../..");
const MP3 = readFileSync(path.join(ROOT, "tests/fixtures/audio/interview-en.mp3"));
const TEST_MODEL = path.join(ROOT, "tests/fixtures/models/for-tests-ggml-tiny.bin");

let t: TestGateway;
let dir: string;
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-speech-auto-"));
  const models = installSherpaModelDirs(dir);
  t = await startTestGateway();
  workers.push(
    await startWorker(t, "transcription-worker", {
      TRANSCRIPTION_ENGINE: "auto",
      PARAKEET_MODEL_DIR: models.parakeet,
      SENSEVOICE_MODEL_DIR: models.sensevoice,
      WHISPER_MODEL_PATH: TEST_MODEL,
      TRANSCRIPTION_FALLBACK: "none",
      SHERPA_THREADS: "1",
      CHUNK_SECONDS: "15",
      DIARIZATION_ENGINE: "none",
    }),
  );
});
afterAll(async () => {
  for (const w of workers) w.child.kill("SIGKILL");
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const snapshot = (jobId: string, token: string) =>
  fetch(`${t.url}/api/transcriptions/${jobId}`, { headers: { authorization: `Bearer ${token}` } }).then((r) =>
    r.json(),
  );

it("GET /api/speech: auto, with every audio language's engine and model", async () => {
  const status = await fetch(`${t.url}/api/speech`).then((r) => r.json());
  expect(status).toMatchObject({ available: true, engine: "auto", languages: "all", notice: null });
  const by = Object.fromEntries(status.routes.map((r: { language: string }) => [r.language, r]));
  expect(Object.keys(by)).toHaveLength(100);
  expect(by.en).toEqual({
    language: "en",
    engine: "parakeet",
    model: "parakeet-tdt-0.6b-v3-int8",
    present: true,
    pull: null,
  });
  expect(by.ja).toEqual({
    language: "ja",
    engine: "sensevoice",
    model: "sense-voice-small-int8",
    present: true,
    pull: null,
  });
  expect(by.ar).toEqual({ language: "ar", engine: "whisper", model: "test-tiny", present: true, pull: null });
});

async function transcribe(language: string) {
  const user = await createUser(t);
  const sock = await listen(t, user.token);
  const r = await upload(
    t,
    user.token,
    { data: MP3, name: "interview.mp3", type: "audio/mpeg" },
    { model: "meeting", language, uiLanguage: "en" },
  );
  expect(r.status).toBe(202);
  const { jobId } = r.body;
  const done = await sock.until(
    (m) => m.jobId === jobId && (m.status === "Transcription complete" || m.status === "Failed"),
  );
  sock.close();
  expect(done.status).toBe("Transcription complete");
  return snapshot(jobId, user.token);
}

function expectWordsInSegments(
  segments: Array<{ start: number; end: number; text: string; words?: Array<{ start: number; end: number }> }>,
) {
  expect(segments.length).toBeGreaterThan(0);
  for (const s of segments) {
    expect(s.words?.length).toBeGreaterThan(0);
    for (const w of s.words ?? []) {
      expect(w.start).toBeGreaterThanOrEqual(s.start - 0.011);
      expect(w.end).toBeLessThanOrEqual(s.end + 0.011);
    }
  }
}

/** Every word is made of the test transducer's pieces: Parakeet's answer (Whisper's test model says nothing). */
const TRANSDUCER_WORD = /^(?:<unk>|the|a|s|and|t|to|e|of|d|in|ing|i|o|we)+$/;

it("an English recording goes to Parakeet: segments with their words", async () => {
  const snap = await transcribe("en");
  expect(snap.transcriptionEngine).toBe("auto:parakeet+sensevoice+whisper");
  expectWordsInSegments(snap.segments);
  const words = snap.segments.flatMap((s: { text: string }) => s.text.split(/\s+/));
  expect(words.length).toBeGreaterThan(0);
  expect(words.every((w: string) => TRANSDUCER_WORD.test(w))).toBe(true);
});

it("a Japanese recording goes to SenseVoice: segments with their words", async () => {
  const snap = await transcribe("ja");
  expect(snap.audioLanguage).toBe("ja");
  expectWordsInSegments(snap.segments);
  // Native word times (SenseVoice's tokens), not the segment's time spread over its words.
  expect(
    snap.segments
      .flatMap((s: { words: Array<{ approximate?: boolean }> }) => s.words)
      .some((w: { approximate?: boolean }) => !w.approximate),
  ).toBe(true);
  // The test SenseVoice model's CJK pieces: only that engine answers them.
  expect(snap.segments.map((s: { text: string }) => s.text).join("")).toMatch(/[日本東京のは]/);
});
