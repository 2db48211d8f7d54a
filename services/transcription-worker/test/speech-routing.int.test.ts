// TRANSCRIPTION_ENGINE=auto at start, with the generated Parakeet-format and SenseVoice-format models
// present (tests/support/onnx-models.ts) under the file names of the real releases: English goes to
// Parakeet and Japanese to SenseVoice through their real child processes; the published routes say
// so for every audio language. A corrupt model is routed around; no model at all is the whisper setup.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jest } from "@jest/globals";
import { AUDIO_LANGUAGE_CODES, speechStatusSchema } from "@kikitori/shared";
import { pino } from "pino";
import { installSherpaModelDirs } from "../../../tests/support/onnx-models.ts";
import { decodeToWav } from "../src/audio.ts";
import { loadConfig } from "../src/config.ts";
import { createSpeechEngine, type SpeechSetup } from "../src/engines/index.ts";
import { RoutedEngine } from "../src/engines/routed.ts";

jest.setTimeout(120_000);

const MP3 = fileURLToPath(new URL("../../../tests/fixtures/audio/interview-en.mp3", import.meta.url));
const logger = pino({ level: "silent" });

let dir: string;
let wav: string;
let parakeetDir: string;
let senseVoiceDir: string;
const setups: SpeechSetup[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-speech-routing-"));
  wav = path.join(dir, "interview.wav");
  await decodeToWav(MP3, wav, { format: "mp3", stream: 0 });
  ({ parakeet: parakeetDir, sensevoice: senseVoiceDir } = installSherpaModelDirs(dir));
});
afterAll(async () => {
  for (const s of setups) await s.engine.close?.();
  rmSync(dir, { recursive: true, force: true });
});

async function start(over: Record<string, string>) {
  const cfg = loadConfig({
    NODE_ENV: "test",
    TRANSCRIPTION_ENGINE: "auto",
    MODELS_DIR: path.join(dir, "models"),
    SHERPA_THREADS: "1",
    ...over,
  });
  const setup = await createSpeechEngine(cfg, logger);
  setups.push(setup);
  return setup;
}

const routeOf = (setup: SpeechSetup, language: string) => setup.status.routes?.find((r) => r.language === language);

it("routes English to Parakeet and Japanese to SenseVoice through their real children; the routes say so", async () => {
  const setup = await start({ PARAKEET_MODEL_DIR: parakeetDir, SENSEVOICE_MODEL_DIR: senseVoiceDir });
  expect(setup.engine).toBeInstanceOf(RoutedEngine);
  const routed = setup.engine as RoutedEngine;
  expect(routed.engineFor("en")?.kind).toBe("parakeet");
  expect(routed.engineFor("de")?.kind).toBe("parakeet");
  expect(routed.engineFor("ja")?.kind).toBe("sensevoice");

  const en = await setup.engine.transcribe(wav, { language: "en", fileType: "interview" });
  expect(en.language).toBe("en");
  expect(en.segments.length).toBeGreaterThan(0);
  expect(en.segments.every((s) => (s.words?.length ?? 0) > 0)).toBe(true);
  const ja = await setup.engine.transcribe(wav, { language: "ja", fileType: "interview" });
  // The tag the SenseVoice model answers for the hint: only that engine gives it.
  expect(ja.language).toBe("ja");
  expect(ja.segments.length).toBeGreaterThan(0);

  const status = speechStatusSchema.parse(setup.status);
  expect(status.engine).toBe("auto");
  expect(status.routes?.map((r) => r.language)).toEqual([...AUDIO_LANGUAGE_CODES]);
  expect(routeOf(setup, "en")).toEqual({
    language: "en",
    engine: "parakeet",
    model: "parakeet-tdt-0.6b-v3-int8",
    present: true,
    pull: null,
  });
  expect(routeOf(setup, "ja")).toMatchObject({ engine: "sensevoice", model: "sense-voice-small-int8", present: true });
  // No Whisper model in MODELS_DIR: languages only Whisper takes are refused, with the line that fetches it.
  expect(routeOf(setup, "ar")).toEqual({
    language: "ar",
    engine: null,
    model: null,
    present: false,
    pull: "npm run models -- pull base",
  });
  expect(status.languages).not.toBe("all");
  expect(status.languages).toEqual(expect.arrayContaining(["en", "de", "ja", "zh", "ko", "yue"]));
  expect(status.notice).toBeNull();
});

it("a corrupt Parakeet model is routed around: English falls to pocketsphinx with the notice, the route names the pull and the failure", async () => {
  const bad = installSherpaModelDirs(path.join(dir, "corrupt"), { corruptEncoder: true }).parakeet;
  const setup = await start({
    PARAKEET_MODEL_DIR: bad,
    SENSEVOICE_MODEL_DIR: senseVoiceDir,
    TRANSCRIPTION_FALLBACK: "pocketsphinx",
  });
  const routed = setup.engine as RoutedEngine;
  expect(routed.engineFor("en")?.kind).toBe("pocketsphinx");
  expect(routed.engineFor("ja")?.kind).toBe("sensevoice");
  expect(setup.status.notice?.code).toBe("SPEECH_FALLBACK_ROUGH");
  expect(routeOf(setup, "en")).toMatchObject({
    engine: "pocketsphinx",
    present: true,
    pull: expect.stringMatching(/^npm run models -- pull parakeet-tdt-0\.6b-v3-int8 --sha256=/),
  });
  expect(routeOf(setup, "de")).toMatchObject({ engine: null, present: false });
  // The rough fallback's notice is the one shown; the routes still say what was routed around, and why.
  expect(routeOf(setup, "en")?.routedAround).toMatchObject({
    engine: "parakeet",
    model: "parakeet-tdt-0.6b-v3-int8",
    reason: expect.stringContaining("could not be loaded"),
  });
  expect(routeOf(setup, "ja")?.routedAround).toBeUndefined();
  expect(routed.routedAround("en")).toBe(true);
  expect(routed.routedAround("ja")).toBe(false);
});

it("no model at all: the whisper setup's fallback, with routes naming what would do better", async () => {
  const setup = await start({ TRANSCRIPTION_FALLBACK: "pocketsphinx" });
  expect(setup.engine.kind).toBe("pocketsphinx");
  expect(setup.status.notice?.code).toBe("SPEECH_FALLBACK_ROUGH");
  expect(routeOf(setup, "en")).toMatchObject({ engine: "pocketsphinx", model: "en-us", present: true });
  expect(routeOf(setup, "ja")).toMatchObject({
    engine: null,
    pull: expect.stringMatching(/^npm run models -- pull sense-voice-small-int8 --sha256=/),
  });
});
