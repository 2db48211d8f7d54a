// The sherpa-onnx offline engines end to end through the worker's real child process, on real speech
// (the interview fixture), with model files in the exact formats of the real exports and random
// weights (tests/support/onnx-models.ts): Parakeet's NeMo transducer and SenseVoice's CTC model load,
// decode and come back as timed segments with words. The text is meaningless; its shape is checked.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jest } from "@jest/globals";
import { sherpaTestModels, testOnnxModels } from "../../../tests/support/onnx-models.ts";
import { decodeToWav } from "../src/audio.ts";
import type { EngineResult } from "../src/engines/port.ts";
import { SherpaOfflineEngine, type SherpaOfflineModel } from "../src/engines/sherpa-offline.ts";

jest.setTimeout(120_000);

const MP3 = fileURLToPath(new URL("../../../tests/fixtures/audio/interview-en.mp3", import.meta.url));

let dir: string;
let wav: string;
let duration: number;
const engines: SherpaOfflineEngine[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-sherpa-offline-"));
  wav = path.join(dir, "interview.wav");
  ({ duration } = await decodeToWav(MP3, wav, { format: "mp3", stream: 0 }));
});
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The generated Parakeet-format transducer, or the same files in another directory `d`. */
function parakeetTestModel(d?: string): SherpaOfflineModel {
  const m = sherpaTestModels().parakeet;
  if (!d) return m;
  const f = (n: string) => path.join(d, n);
  return {
    ...m,
    files: {
      encoder: f("encoder.onnx"),
      decoder: f("decoder.onnx"),
      joiner: f("joiner.onnx"),
      tokens: f("tokens.txt"),
    },
  };
}

function senseVoiceTestModel(d?: string): SherpaOfflineModel {
  const m = sherpaTestModels().sensevoice;
  return d ? { ...m, files: { model: path.join(d, "model.onnx"), tokens: path.join(d, "tokens.txt") } } : m;
}

const engine = (model: SherpaOfflineModel) => {
  const e = new SherpaOfflineEngine({ model, threads: 1, timeoutMs: 60_000 });
  engines.push(e);
  return e;
};

/** Whether the process `pid` is gone (SIGKILL is delivered at once; its exit is seen within 2 s). */
async function exits(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

function expectTimedShape(r: EngineResult) {
  expect(r.segments.length).toBeGreaterThan(0);
  let last = 0;
  for (const s of r.segments) {
    expect(s.text).toBe(s.text.trim());
    expect(s.text.length).toBeGreaterThan(0);
    expect(s.start).toBeGreaterThanOrEqual(last);
    expect(s.end).toBeGreaterThanOrEqual(s.start);
    expect(s.end).toBeLessThanOrEqual(duration + 0.01);
    expect(s.words?.length).toBeGreaterThan(0);
    for (const w of s.words ?? []) {
      expect(w.start).toBeGreaterThanOrEqual(last);
      expect(w.start).toBeGreaterThanOrEqual(s.start);
      expect(w.end).toBeLessThanOrEqual(s.end);
      expect(w.end).toBeGreaterThanOrEqual(w.start);
      expect(s.text).toContain(w.text);
      last = w.start;
    }
    last = s.start;
  }
}

it("parakeet: loads the NeMo transducer in its child and decodes real speech into timed segments with words", async () => {
  const e = engine(parakeetTestModel());
  expect(e.kind).toBe("parakeet");
  expect(e.name).toBe("parakeet:test-transducer");
  await e.check();
  const r = await e.transcribe(wav, { language: "en", fileType: "interview" });
  expect(r.language).toBe("en");
  expectTimedShape(r);
  // Words are the tokens.txt pieces joined at their word starts.
  const pieces = ["<unk>", "the", "a", "s", "and", "t", "to", "e", "of", "d", "in", "ing", "i", "o", "we"];
  const joined = new RegExp(`^(${pieces.join("|")})+$`);
  expect(r.segments.flatMap((s) => s.words ?? []).every((w) => joined.test(w.text))).toBe(true);
});

it("sensevoice: passes the language hint (the model answers its tag), decodes real speech into timed segments", async () => {
  const e = engine(senseVoiceTestModel());
  await e.check();
  const ja = await e.transcribe(wav, { language: "ja", fileType: "interview" });
  expect(ja.language).toBe("ja");
  expectTimedShape(ja);
  // No tags in the text; CJK characters are words of their own, joined without spaces.
  const text = ja.segments.map((s) => s.text).join("");
  expect(text).not.toMatch(/<\|/);
  const cjkWords = ja.segments.flatMap((s) => s.words ?? []).filter((w) => /^[日本東京のは]/.test(w.text));
  expect(cjkWords.length).toBeGreaterThan(0);
  expect(cjkWords.every((w) => /^[日本東京のは][、。]*$/.test(w.text))).toBe(true);
  // Another hint: the recognizer is made again with it.
  const ko = await e.transcribe(wav, { language: "ko", fileType: "interview" });
  expect(ko.language).toBe("ko");
});

it("a corrupt model file fails check() with the engine's name and the reason", async () => {
  const d = path.join(dir, "corrupt");
  mkdirSync(d, { recursive: true });
  const src = testOnnxModels().nemoTransducer;
  for (const f of ["decoder.onnx", "joiner.onnx", "tokens.txt"]) copyFileSync(path.join(src, f), path.join(d, f));
  writeFileSync(path.join(d, "encoder.onnx"), Buffer.from("not an onnx model at all".repeat(100)));
  await expect(engine(parakeetTestModel(d)).check()).rejects.toThrow(
    /the parakeet:test-transducer model could not be loaded \(corrupt or wrong files\?\)/,
  );
  // A SenseVoice export without one of the metadata keys sherpa-onnx reads.
  await expect(engine(senseVoiceTestModel(testOnnxModels().senseVoiceNoLangJa)).check()).rejects.toThrow(
    /sensevoice:test-ctc model could not be loaded.*process ended/,
  );
});

it("a missing model file fails check() naming the file and the command that fetches it", async () => {
  const model = { ...senseVoiceTestModel(), pull: "npm run models -- pull sense-voice-small-int8" };
  model.files = { ...model.files, model: path.join(dir, "absent", "model.int8.onnx") };
  await expect(engine(model).check()).rejects.toThrow(
    /model file missing: .*absent\/model\.int8\.onnx \(run: npm run models -- pull sense-voice-small-int8\)/,
  );
});

it("an abort kills the child; the next request starts a fresh one", async () => {
  // 20 minutes of speech: long enough to be still decoding when the abort comes.
  const long = path.join(dir, "long.wav");
  execFileSync("sox", [...Array(20).fill(wav), long]);
  const e = engine(parakeetTestModel());
  await e.check();
  const pid = e.pid;
  expect(pid).toBeDefined();
  const ac = new AbortController();
  const running = e.transcribe(long, { language: "en", fileType: "interview", signal: ac.signal });
  setTimeout(() => ac.abort(), 300);
  await expect(running).rejects.toThrow(/cancelled/);
  expect(await exits(pid as number)).toBe(true);
  const again = await e.transcribe(wav, { language: "en", fileType: "interview" });
  expect(e.pid).not.toBe(pid);
  expect(again.segments.length).toBeGreaterThan(0);
});

it("a chunk past the time-out kills the child and fails, to be retried", async () => {
  const long = path.join(dir, "long-timeout.wav");
  execFileSync("sox", [...Array(20).fill(wav), long]);
  const e = new SherpaOfflineEngine({ model: parakeetTestModel(), threads: 1, timeoutMs: 200 });
  engines.push(e);
  await e.check();
  const pid = e.pid;
  const err = await e.transcribe(long, { language: "en", fileType: "interview" }).catch((x: unknown) => x);
  expect(err).toMatchObject({ code: "TRANSCRIPTION_FAILED", retryable: true });
  expect((err as Error).message).toMatch(/took longer than 200 ms/);
  expect(e.pid).toBeUndefined();
  expect(await exits(pid as number)).toBe(true);
});
