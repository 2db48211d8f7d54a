// The speech engine is routed around at start when its model file is corrupt: Whisper with a
// corrupt model → pocketsphinx with the notice the transcription screen shows (or a clear refusal
// when the fallback is off). Sherpa diarization asked for but unusable at start → the classic engine,
// which puts the notice on every job. Diarization's fallback per job: tests/pipeline/diarization-fallback.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { pino } from "pino";
import { loadConfig } from "../src/config.ts";
import { createDiarizationEngine } from "../src/diarization/index.ts";
import { createSpeechEngine, SpeechModelUnavailableError } from "../src/engines/index.ts";
import { cpuProblem } from "../src/engines/whisper.ts";

jest.setTimeout(120_000);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-engine-fallback-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const logger = pino({ level: "silent" });

function config(over: Record<string, string>) {
  return loadConfig({ NODE_ENV: "test", TRANSCRIPTION_ENGINE: "whisper", MODELS_DIR: dir, ...over });
}

it("a corrupt Whisper model at start: English goes to pocketsphinx with the notice naming the file", async () => {
  const bad = path.join(dir, "ggml-corrupt.bin");
  writeFileSync(bad, Buffer.alloc(8192, 3));
  const setup = await createSpeechEngine(
    config({ WHISPER_MODEL_PATH: bad, TRANSCRIPTION_FALLBACK: "pocketsphinx" }),
    logger,
  );
  expect(setup.engine.name).toBe("pocketsphinx");
  expect(setup.status.notice?.code).toBe("SPEECH_FALLBACK_ROUGH");
  // On a CPU without AVX2 the reason is the CPU, found before the file is read.
  expect(setup.status.notice?.reason).toMatch(cpuProblem() ? /Whisper is not available/ : /ggml-corrupt\.bin/);
});

it("a corrupt Whisper model with the fallback off: the worker refuses to start, saying why", async () => {
  const bad = path.join(dir, "ggml-corrupt-2.bin");
  writeFileSync(bad, Buffer.alloc(8192, 5));
  await expect(
    createSpeechEngine(config({ WHISPER_MODEL_PATH: bad, TRANSCRIPTION_FALLBACK: "none" }), logger),
  ).rejects.toBeInstanceOf(SpeechModelUnavailableError);
});

it("sherpa diarization asked for but unusable at start: the classic engine, whose jobs carry the notice", async () => {
  const empty = path.join(dir, "no-models");
  const sherpa = await createDiarizationEngine({ DIARIZATION_ENGINE: "sherpa", MODELS_DIR: empty }, logger);
  expect(sherpa?.name).toBe("classic");
  expect(sherpa?.notice).toBe("diarization_fallback");
  // auto without models is the classic engine by choice: no notice.
  const auto = await createDiarizationEngine({ DIARIZATION_ENGINE: "auto", MODELS_DIR: empty }, logger);
  expect(auto?.name).toBe("classic");
  expect(auto?.notice).toBeUndefined();
});
