// A NeMo transducer in the exact format sherpa-onnx's OfflineRecognizer reads with modelType
// "nemo_transducer" (the format of the Parakeet exports; random weights, tests/support/onnx-models.ts)
// loads and decodes real speech into a result of the expected form: the format a Parakeet engine
// would use is proven here, not on a user's machine. The text itself is meaningless.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jest } from "@jest/globals";
import { testOnnxModels } from "../../../tests/support/onnx-models.ts";
import { decodeToWav } from "../src/audio.ts";
import { readWavMono16k } from "../src/wav.ts";

jest.setTimeout(120_000);

const MP3 = fileURLToPath(new URL("../../../tests/fixtures/audio/interview-en.mp3", import.meta.url));
const require = createRequire(import.meta.url);

interface OfflineRecognizer {
  createStream(): { acceptWaveform(w: { sampleRate: number; samples: Float32Array }): void };
  decode(stream: unknown): void;
  getResult(stream: unknown): { text: string; tokens: string[]; timestamps: number[] };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-transducer-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("loads a NeMo transducer and decodes real speech: tokens from tokens.txt, timestamps in order", async () => {
  const d = testOnnxModels().nemoTransducer;
  const sherpa = require("sherpa-onnx-node") as { OfflineRecognizer: new (config: unknown) => OfflineRecognizer };
  const recognizer = new sherpa.OfflineRecognizer({
    featConfig: { sampleRate: 16000, featureDim: 80 },
    modelConfig: {
      transducer: {
        encoder: path.join(d, "encoder.onnx"),
        decoder: path.join(d, "decoder.onnx"),
        joiner: path.join(d, "joiner.onnx"),
      },
      tokens: path.join(d, "tokens.txt"),
      modelType: "nemo_transducer",
      numThreads: 1,
      debug: 0,
    },
    decodingMethod: "greedy_search",
  });
  const wav = path.join(dir, "interview.wav");
  const { duration } = await decodeToWav(MP3, wav, { format: "mp3", stream: 0 });
  const samples = readWavMono16k(readFileSync(wav)).subarray(0, 16000 * 20);
  const stream = recognizer.createStream();
  stream.acceptWaveform({ sampleRate: 16000, samples });
  recognizer.decode(stream);
  const result = recognizer.getResult(stream);

  const vocabulary = new Set(
    readFileSync(path.join(d, "tokens.txt"), "utf8")
      .trim()
      .split("\n")
      // sherpa-onnx answers the pieces with their word-start mark "▁" as a space.
      .map((l) => l.split(" ")[0].replaceAll("▁", " ")),
  );
  expect(result.tokens.length).toBeGreaterThan(0);
  expect(result.tokens.every((tok) => vocabulary.has(tok) && tok !== "<blk>")).toBe(true);
  expect(result.timestamps).toHaveLength(result.tokens.length);
  const seconds = Math.min(duration, 20);
  for (const [i, ts] of result.timestamps.entries()) {
    expect(ts).toBeGreaterThanOrEqual(i > 0 ? result.timestamps[i - 1] : 0);
    expect(ts).toBeLessThanOrEqual(seconds);
  }
  // The text is the tokens joined.
  expect(result.text.trim()).toBe(result.tokens.join("").trim());
});
