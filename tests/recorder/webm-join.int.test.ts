// Joining real WebM/Opus parts: two made by ffmpeg (a live stream with an unknown-size segment and no
// Cues, and a seekable file with known sizes, SeekHead and Cues), and Chromium's MediaRecorder WebM
// (unknown-size clusters) twice. What the join gives must decode whole, without an error, to the sum.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { decodedSeconds, ffmpegPath, probeAudio } from "@kikitori/shared/server";
import { joinWebm } from "../../web/src/transcription/recorder/webm-join.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/audio");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-webm-join-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A cut of the interview fixture as mono 48 kHz Opus in WebM; `live` writes it as a stream to a pipe. */
function opusPart(name: string, from: number, seconds: number, live: boolean): Uint8Array {
  const args = [
    ...["-v", "error", "-ss", String(from), "-i", path.join(FIXTURES, "interview-en.mp3"), "-t", String(seconds)],
    ...["-ac", "1", "-ar", "48000", "-c:a", "libopus", "-b:a", "32k", "-f", "webm"],
  ];
  const file = path.join(dir, name);
  if (live) writeFileSync(file, execFileSync(ffmpegPath(), [...args, "-live", "1", "pipe:1"]));
  else execFileSync(ffmpegPath(), [...args, "-cluster_time_limit", "1000", file]);
  return readFileSync(file);
}

/** ffmpeg's complaints decoding the file with the webm demuxer forced (empty: none). */
function decodeErrors(file: string): string {
  return execFileSync(ffmpegPath(), ["-v", "error", "-f", "webm", "-i", file, "-f", "null", "-"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function check(joined: Uint8Array | null, name: string) {
  expect(joined).not.toBeNull();
  const file = path.join(dir, name);
  writeFileSync(file, joined as Uint8Array);
  expect(await probeAudio(file, "webm")).toMatchObject({ stream: 0, audioStreams: 1 });
  expect(decodeErrors(file)).toBe("");
  return decodedSeconds(file, "webm", 0);
}

it("joins a 3 s and a 4 s ffmpeg WebM/Opus part into one 7 s stream that decodes without errors", async () => {
  const a = opusPart("a.webm", 0, 3, true);
  const b = opusPart("b.webm", 10, 4, false);
  expect(await decodedSeconds(path.join(dir, "a.webm"), "webm", 0)).toBeCloseTo(3, 1);
  expect(await decodedSeconds(path.join(dir, "b.webm"), "webm", 0)).toBeCloseTo(4, 1);
  const seconds = await check(joinWebm([a, b]), "joined.webm");
  expect(Math.abs(seconds - 7)).toBeLessThanOrEqual(0.1);
});

it("joins Chromium MediaRecorder parts (unknown-size clusters) into one stream of their total length", async () => {
  const recording = readFileSync(path.join(FIXTURES, "mediarecorder-chromium.webm"));
  const one = await decodedSeconds(path.join(FIXTURES, "mediarecorder-chromium.webm"), "webm", 0);
  const seconds = await check(joinWebm([recording, recording]), "chromium.webm");
  expect(Math.abs(seconds - 2 * one)).toBeLessThanOrEqual(0.1);
});

it("refuses parts from different encoder setups (Chromium's OpusHead, ffmpeg's) and Ogg parts", () => {
  const recording = readFileSync(path.join(FIXTURES, "mediarecorder-chromium.webm"));
  expect(joinWebm([recording, opusPart("c.webm", 0, 2, false)])).toBeNull();
  const ogg = path.join(dir, "d.ogg");
  execFileSync(ffmpegPath(), [
    "-v",
    "error",
    "-i",
    path.join(FIXTURES, "interview-en.mp3"),
    "-t",
    "2",
    "-c:a",
    "libopus",
    ogg,
  ]);
  expect(joinWebm([readFileSync(ogg), readFileSync(ogg)])).toBeNull();
});
