// A recording made in the browser: Chromium's MediaRecorder writes WebM/Opus with no duration in the
// header (it cannot know it when the first chunk leaves). The fixture was recorded by headless Chromium
// (fake microphone playing 6 s of interview-en.mp3, 1 s chunks, 32 kbit/s), as the recorder does.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { decodedSeconds, probeAudio, sniffAudioFile } from "@kikitori/shared/server";
import { decodeToWav } from "../../transcription-worker/src/audio.ts";

const RECORDING = path.resolve(import.meta.dirname, "../../../tests/fixtures/audio/mediarecorder-chromium.webm");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-mediarecorder-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a MediaRecorder WebM has no length in its header: the probe says 0, the bounded decode measures it", async () => {
  const head = readFileSync(RECORDING).subarray(0, 4096);
  const format = await sniffAudioFile(RECORDING, head);
  expect(format).toBe("webm");
  if (!format) return;

  // No length to read: the upload's quota check before decoding cannot refuse it, the one after does.
  const probe = await probeAudio(RECORDING, format);
  expect(probe).toEqual({ durationSeconds: 0, stream: 0, audioStreams: 1 });

  // The upload use case measures what really decodes (and charges that): about 6 s.
  const seconds = await decodedSeconds(RECORDING, format, 0, 60);
  expect(seconds).toBeGreaterThan(5);
  expect(seconds).toBeLessThan(7.5);
  // Bounded: a longer recording than the seconds left is read no further than that.
  expect(await decodedSeconds(RECORDING, format, 0, 2)).toBeCloseTo(2, 0);

  // The worker decodes the same length for the speech engine.
  const out = await decodeToWav(RECORDING, path.join(dir, "recording.wav"), { format, stream: 0, maxSeconds: 60 });
  expect(out.duration).toBeCloseTo(seconds, 0);
});
