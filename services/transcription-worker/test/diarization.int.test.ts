// Speaker diarization on real recorded voices: the classic engine in its child process,
// the sherpa engine's load path and its errors, and the engine chosen at start.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { pino } from "pino";
import { buildInterview, realVoiceClips, writeWav } from "../../../tests/support/two-voice.ts";
import { ClassicDiarizationEngine } from "../src/diarization/classic.ts";
import { diarizationErrorRate, turnCount } from "../src/diarization/der.ts";
import { createDiarizationEngine } from "../src/diarization/index.ts";
import { SHERPA_MODELS } from "../src/diarization/models.ts";
import { SherpaDiarizationEngine } from "../src/diarization/sherpa.ts";
import { detectSpeech } from "../src/vad.ts";

jest.setTimeout(120_000);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-diar-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const logger = pino({ level: "silent" });

describe("the classic engine on two real voices", () => {
  it("tells the LibriVox reader and Kennedy apart in a 20-turn interview: DER ≤ 15 %, turns within ±10 %", async () => {
    const v = realVoiceClips();
    const iv = buildInterview({ a: v.librivox, b: v.jfk }, 20, 7);
    const wav = path.join(dir, "iv.wav");
    writeWav(wav, iv.samples);
    const speech = await detectSpeech(wav);
    const hyp = await new ClassicDiarizationEngine().diarize(wav, speech, { speakers: 2 });
    const { der } = diarizationErrorRate(iv.truth, hyp);
    expect(der).toBeLessThanOrEqual(0.15);
    expect(Math.abs(turnCount(hyp) - 20)).toBeLessThanOrEqual(2);
    expect(new Set(hyp.map((h) => h.speaker))).toEqual(new Set([0, 1]));
    // Spans are sorted, inside the recording, numbered by first appearance.
    expect(hyp[0].speaker).toBe(0);
    for (let i = 1; i < hyp.length; i++) expect(hyp[i].start).toBeGreaterThanOrEqual(hyp[i - 1].end);
  });

  it("stops at once when aborted (its child process is killed)", async () => {
    const v = realVoiceClips();
    const iv = buildInterview({ a: v.librivox, b: v.cards }, 40, 3);
    const wav = path.join(dir, "long.wav");
    writeWav(wav, iv.samples);
    const speech = iv.truth.map((t) => ({ start: t.start, end: t.end }));
    const ac = new AbortController();
    const run = new ClassicDiarizationEngine().diarize(wav, speech, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error("cancelled")), 200);
    const t0 = Date.now();
    await expect(run).rejects.toThrow("cancelled");
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});

describe("the sherpa engine", () => {
  it("says which model is missing and how to get it", async () => {
    const engine = new SherpaDiarizationEngine({
      segmentation: path.join(dir, "none-seg.onnx"),
      embedding: path.join(dir, "none-emb.onnx"),
    });
    await expect(engine.check()).rejects.toThrow(
      /diarization model missing: .*none-seg\.onnx .*npm run models -- pull diarization/,
    );
  });

  it("refuses corrupt model files at the start-up check, naming them, without taking the worker down", async () => {
    const seg = path.join(dir, "bad-seg.onnx");
    const emb = path.join(dir, "bad-emb.onnx");
    writeFileSync(seg, "not an onnx model");
    writeFileSync(emb, "not an onnx model either");
    const engine = new SherpaDiarizationEngine({ segmentation: seg, embedding: emb });
    await expect(engine.check()).rejects.toThrow(
      /diarization models could not be loaded \(.*bad-seg\.onnx.*\).*(Protobuf|Load model)/s,
    );
  });

  it("is chosen at start only with verified models: auto falls back to classic, none turns the step off", async () => {
    const empty = path.join(dir, "models");
    mkdirSync(empty, { recursive: true });
    expect((await createDiarizationEngine({ DIARIZATION_ENGINE: "auto", MODELS_DIR: empty }, logger))?.name).toBe(
      "classic",
    );
    expect((await createDiarizationEngine({ DIARIZATION_ENGINE: "sherpa", MODELS_DIR: empty }, logger))?.name).toBe(
      "classic",
    );
    expect(await createDiarizationEngine({ DIARIZATION_ENGINE: "none", MODELS_DIR: empty }, logger)).toBeNull();
    // Files in place but unverified (no marker naming their SHA-256) are not used either.
    writeFileSync(path.join(empty, SHERPA_MODELS.segmentation.file), "x");
    writeFileSync(path.join(empty, SHERPA_MODELS.embedding.file), "y");
    expect((await createDiarizationEngine({ DIARIZATION_ENGINE: "auto", MODELS_DIR: empty }, logger))?.name).toBe(
      "classic",
    );
  });
});
