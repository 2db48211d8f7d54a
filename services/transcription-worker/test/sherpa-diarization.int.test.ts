// The sherpa diarization engine end to end on real speech, through its real child process, with
// model files in sherpa-onnx's exact formats (random weights, tests/support/onnx-models.ts): the
// files load, run and are parsed into speaker spans; a wrong shape, a missing metadata key or a
// truncated file fails here, with a clear error, instead of in a user's job.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jest } from "@jest/globals";
import { type TestOnnxModels, testOnnxModels } from "../../../tests/support/onnx-models.ts";
import { decodeToWav } from "../src/audio.ts";
import { SherpaDiarizationEngine } from "../src/diarization/sherpa.ts";
import { detectSpeech, type SpeechSpan } from "../src/vad.ts";

jest.setTimeout(120_000);

const MP3 = fileURLToPath(new URL("../../../tests/fixtures/audio/interview-en.mp3", import.meta.url));

let dir: string;
let models: TestOnnxModels;
let wav: string;
let duration: number;
let speech: SpeechSpan[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-sherpa-"));
  models = testOnnxModels();
  wav = path.join(dir, "interview.wav");
  ({ duration } = await decodeToWav(MP3, wav, { format: "mp3", stream: 0 }));
  speech = await detectSpeech(wav);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the sherpa engine with models in sherpa-onnx's formats", () => {
  it("loads them at the start-up check and diarizes real speech into well-formed spans", async () => {
    expect(duration).toBeGreaterThan(10);
    expect(speech.length).toBeGreaterThan(0);
    const engine = new SherpaDiarizationEngine({ segmentation: models.segmentation, embedding: models.embedding });
    await engine.check();
    const spans = await engine.diarize(wav, speech, { speakers: 2 });
    expect(spans.length).toBeGreaterThan(0);
    for (const [i, s] of spans.entries()) {
      expect(Number.isInteger(s.speaker) && s.speaker >= 0).toBe(true);
      expect(s.start).toBeGreaterThanOrEqual(0);
      expect(s.end).toBeGreaterThan(s.start);
      expect(s.end).toBeLessThanOrEqual(duration + 0.01);
      if (i > 0) expect(s.start).toBeGreaterThanOrEqual(spans[i - 1].end);
      // Every span lies in the VAD's speech.
      expect(speech.some((v) => v.start <= s.start + 1e-6 && s.end <= v.end + 1e-6)).toBe(true);
    }
    expect(new Set(spans.map((s) => s.speaker)).size).toBeLessThanOrEqual(2);
    // Without a speaker count it clusters by threshold, and still answers in the same form.
    const free = await engine.diarize(wav, speech);
    expect(free.every((s) => s.speaker >= 0 && s.end > s.start)).toBe(true);
  });
});

describe("a long recording is diarized in windows whose speakers are linked by voice", () => {
  it("answers one set of speakers for the whole recording, spans in order inside the speech", async () => {
    // Windows of 8 s stand in for the 20-minute windows of an hours-long recording.
    const windowed = new SherpaDiarizationEngine({ segmentation: models.segmentation, embedding: models.embedding }, 8);
    const spans = await windowed.diarize(wav, speech, { speakers: 2 });
    expect(spans.length).toBeGreaterThan(0);
    for (const [i, s] of spans.entries()) {
      expect(s.end).toBeGreaterThan(s.start);
      if (i > 0) expect(s.start).toBeGreaterThanOrEqual(spans[i - 1].end);
      expect(speech.some((v) => v.start <= s.start + 1e-6 && s.end <= v.end + 1e-6)).toBe(true);
    }
    // The windows' speakers were linked down to the count asked for, numbered by first appearance.
    const speakers = [...new Set(spans.map((s) => s.speaker))];
    expect(speakers.length).toBeLessThanOrEqual(2);
    expect(speakers[0]).toBe(0);
    // Windows after the first were diarized too: the recording was not cut to its first window.
    expect(spans.some((s) => s.start >= (speech[0]?.start ?? 0) + 8)).toBe(true);
    const free = await windowed.diarize(wav, speech);
    expect(free.every((s) => s.speaker >= 0 && s.speaker < 6 && s.end > s.start)).toBe(true);
  });
});

describe("the sherpa engine refuses model files not in sherpa-onnx's formats, with a clear error", () => {
  const engineWith = (segmentation: string, embedding: string) =>
    new SherpaDiarizationEngine({ segmentation, embedding });

  it("a segmentation model without the window_size metadata key fails the start-up check", async () => {
    await expect(engineWith(models.segmentationNoWindowSize, models.embedding).check()).rejects.toThrow(
      /diarization models could not be loaded \(.*pyannote-segmentation-no-window-size\.onnx.*\).*window_size/s,
    );
  });

  it("an embedding model without the output_dim key, or not from NeMo, fails the start-up check", async () => {
    await expect(engineWith(models.segmentation, models.embeddingNoOutputDim).check()).rejects.toThrow(
      /diarization models could not be loaded.*output_dim/s,
    );
    await expect(engineWith(models.segmentation, models.embeddingNotNemo).check()).rejects.toThrow(
      /diarization models could not be loaded/,
    );
  });

  it("a segmentation model whose input has the wrong shape fails the start-up check, and a recording", async () => {
    const engine = engineWith(models.segmentationRank2Input, models.embedding);
    await expect(engine.check()).rejects.toThrow(/diarization models could not be loaded \(.*rank2-input\.onnx/);
    await expect(engine.diarize(wav, speech, { speakers: 2 })).rejects.toThrow(/./);
  });

  it("a truncated (corrupt) model file fails the start-up check, naming the file", async () => {
    for (const which of ["segmentation", "embedding"] as const) {
      const cut = path.join(dir, `truncated-${which}.onnx`);
      const bytes = readFileSync(models[which]);
      writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
      const paths = { segmentation: models.segmentation, embedding: models.embedding, [which]: cut };
      await expect(engineWith(paths.segmentation, paths.embedding).check()).rejects.toThrow(
        new RegExp(`diarization models could not be loaded \\(.*truncated-${which}\\.onnx`),
      );
    }
  });
});
