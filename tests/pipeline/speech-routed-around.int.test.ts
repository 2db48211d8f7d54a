// TRANSCRIPTION_ENGINE=auto with a CORRUPT Parakeet model (the generated one, its encoder overwritten),
// a working SenseVoice model and whisper.cpp's test model, through the real gateway, worker, Postgres,
// Redis and S3 server: GET /api/speech says Parakeet was routed around (the notice and each of its
// languages' routes), an English recording is transcribed by Whisper and its job carries the
// `speech_fallback` notice, a Japanese one goes to SenseVoice as usual, without it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { speechStatusSchema } from "@kikitori/shared";
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
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-speech-around-"));
  // Every Parakeet file is there (the model is "present"), but the encoder is not an ONNX graph.
  const models = installSherpaModelDirs(dir, { corruptEncoder: true });
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
  return fetch(`${t.url}/api/transcriptions/${jobId}`, { headers: { authorization: `Bearer ${user.token}` } }).then(
    (res) => res.json(),
  );
}

it("GET /api/speech: the notice, and Parakeet's languages routed around it to Whisper with the reason", async () => {
  const status = speechStatusSchema.parse(await fetch(`${t.url}/api/speech`).then((r) => r.json()));
  expect(status.notice).toMatchObject({
    code: "SPEECH_ROUTED_AROUND",
    setting: expect.stringContaining("PARAKEET_MODEL_DIR"),
    reason: expect.stringContaining("parakeet-tdt-0.6b-v3-int8 could not be loaded"),
  });
  const by = Object.fromEntries((status.routes ?? []).map((r) => [r.language, r]));
  for (const language of ["en", "de", "fr"]) {
    expect(by[language]).toMatchObject({
      engine: "whisper",
      present: true,
      routedAround: { engine: "parakeet", model: "parakeet-tdt-0.6b-v3-int8" },
    });
  }
  expect(by.ja).toMatchObject({ engine: "sensevoice", present: true });
  expect(by.ja.routedAround).toBeUndefined();
  expect(by.ar.routedAround).toBeUndefined();
});

it("an English recording is transcribed by Whisper, and its job says a less accurate engine did it", async () => {
  const snap = await transcribe("en");
  expect(snap.transcriptionEngine).toBe("auto:sensevoice+whisper");
  expect(snap.notices).toEqual(["speech_fallback"]);
});

it("a Japanese recording goes to SenseVoice as usual: no notice", async () => {
  const snap = await transcribe("ja");
  expect(snap.segments.map((s: { text: string }) => s.text).join("")).toMatch(/[日本東京のは]/);
  expect(snap.notices).toEqual([]);
});
