// Silero VAD (sherpa-onnx) on real read speech: LibriVox clips from Debian's pocketsphinx-testdata,
// laid out with known silences between them, decoded the way the worker decodes uploads.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ffmpegPath } from "@kikitori/shared/server";
import { decodeToWav } from "../src/audio.ts";
import { detectSpeech, planSpeechChunks, type SpeechSpan } from "../src/vad.ts";

const CLIPS = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-";
const RATE = 16000;
const EDGE = 0.3; // seconds of tolerance on each detected speech edge
const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-vad-"));
const file = (name: string) => path.join(dir, name);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ffmpeg = (...args: string[]) => execFileSync(ffmpegPath(), ["-hide_banner", "-v", "error", "-y", ...args]);

/** A clip's samples (16 kHz mono) and where its speech is: first to last 20 ms frame above −35 dBFS. */
function measureClip(id: string) {
  const raw = ffmpeg("-i", `${CLIPS}${id}.wav`, "-f", "s16le", "-ac", "1", "-ar", String(RATE), "-");
  const s = new Int16Array(raw.buffer, raw.byteOffset, raw.length >> 1);
  const frame = RATE / 50;
  const loud: number[] = [];
  for (let i = 0; i + frame <= s.length; i += frame) {
    let e = 0;
    for (let j = i; j < i + frame; j++) e += (s[j] / 32768) ** 2;
    if (10 * Math.log10(e / frame) > -35) loud.push(i);
  }
  return { id, seconds: s.length / RATE, speech: { start: loud[0] / RATE, end: (loud.at(-1)! + frame) / RATE } };
}

/**
 * Concatenates silences (numbers, in seconds) and clips with ffmpeg, adds faint white noise
 * (about −60 dBFS) when asked, then decodes it like an upload (decodeToWav).
 */
async function compose(
  name: string,
  parts: Array<number | string>,
  noise = false,
): Promise<{ wav: string; duration: number }> {
  const inputs = parts.flatMap((p) =>
    typeof p === "number"
      ? ["-f", "lavfi", "-t", String(p), "-i", `anullsrc=r=${RATE}:cl=mono`]
      : ["-i", `${CLIPS}${p}.wav`],
  );
  const each = parts.map((_, i) => `[${i}:a]aresample=${RATE},aformat=channel_layouts=mono[p${i}];`).join("");
  let graph = `${each}${parts.map((_, i) => `[p${i}]`).join("")}concat=n=${parts.length}:v=0:a=1`;
  if (noise)
    graph += `[speech];anoisesrc=r=${RATE}:a=0.001:c=white[noise];[speech][noise]amix=inputs=2:duration=first:normalize=0`;
  const raw = file(`${name}-raw.wav`);
  ffmpeg(...inputs, "-filter_complex", graph, "-c:a", "pcm_s16le", raw);
  const wav = file(`${name}.wav`);
  const { duration } = await decodeToWav(raw, wav, { format: "wav", stream: 0 });
  return { wav, duration };
}

/** Process ids of this process's running VAD children. */
function vadChildren(): number[] {
  const mine = String(process.pid);
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
        return ppid === mine && readFileSync(`/proc/${p}/cmdline`, "utf8").includes("vad-child.mjs");
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
}

beforeAll(() => {
  if (!existsSync(`${CLIPS}0870.wav`))
    throw new Error("LibriVox test clips missing: apt-get install pocketsphinx-testdata");
});

describe("detectSpeech on read speech with known silences", () => {
  const clips = ["0870", "0880", "0890"].map(measureClip);
  // 1 s silence, A (7.1 s), 3 s silence, B (3.0 s), 1.5 s silence, C (5.3 s), 1 s silence.
  const layout = [1, clips[0].id, 3, clips[1].id, 1.5, clips[2].id, 1];
  const truth: SpeechSpan[] = [];
  let t = 0;
  for (const p of layout) {
    const clip = clips.find((c) => c.id === p);
    if (clip) truth.push({ start: t + clip.speech.start, end: t + clip.speech.end });
    t += clip ? clip.seconds : (p as number);
  }

  for (const noise of [false, true]) {
    it(`finds the three sentences within ${EDGE} s${noise ? " under faint noise" : ""} and plans chunks around the long silence`, async () => {
      const { wav, duration } = await compose(noise ? "noisy" : "clean", layout, noise);
      expect(duration).toBeCloseTo(t, 1);
      // ffmpeg writes a LIST chunk between fmt and data: the reader must walk the RIFF chunks.
      const header = readFileSync(wav).subarray(0, 200).toString("latin1");
      expect(header.indexOf("LIST")).toBeGreaterThan(0);
      expect(header.indexOf("LIST")).toBeLessThan(header.indexOf("data"));

      const spans = await detectSpeech(wav);
      expect(spans).toHaveLength(3);
      for (const [i, s] of spans.entries()) {
        expect(Math.abs(s.start - truth[i].start)).toBeLessThanOrEqual(EDGE);
        expect(Math.abs(s.end - truth[i].end)).toBeLessThanOrEqual(EDGE);
      }

      const plan = planSpeechChunks(spans, duration);
      // The 3 s silence between A and B is skipped (bar the padding); the 1.5 s one stays in a chunk.
      expect(plan.map((c) => c.speech.length)).toEqual([1, 2]);
      const silence = { start: truth[0].end + EDGE + 0.2, end: truth[1].start - EDGE - 0.2 };
      for (const c of plan) expect(c.end <= silence.start || c.start >= silence.end).toBe(true);
      expect(plan[0].start).toBeGreaterThan(0.5); // the leading second of silence is left out too
    });
  }

  it("finds nothing in 5 s of silence, digital or faintly noisy", async () => {
    for (const noise of [false, true]) {
      const { wav, duration } = await compose(noise ? "hiss" : "silence", [5], noise);
      expect(duration).toBeCloseTo(5, 1);
      expect(await detectSpeech(wav)).toEqual([]);
      expect(planSpeechChunks([], duration)).toEqual([]);
    }
  });
});

describe("detectSpeech on a long recording", () => {
  let long = "";
  beforeAll(async () => {
    // About 5 minutes: the three clips with pauses, 16 times over.
    const round = ["0870", 0.8, "0880", 2.5, "0890", 0.4];
    ({ wav: long } = await compose("long", Array.from({ length: 16 }, () => round).flat()));
  }, 60_000);

  it("keeps the event loop free while it runs", async () => {
    let worst = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 10);
    try {
      const spans = await detectSpeech(long);
      expect(spans.length).toBeGreaterThanOrEqual(16 * 2);
    } finally {
      clearInterval(timer);
    }
    expect(worst).toBeLessThan(500); // a blocking VAD would stall it for the whole run (seconds)
  }, 60_000);

  it("stops at once when aborted and leaves no process behind", async () => {
    const ac = new AbortController();
    const running = detectSpeech(long, { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 300));
    expect(vadChildren()).toHaveLength(1);
    const t0 = performance.now();
    ac.abort();
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(vadChildren()).toEqual([]);
    // An already aborted signal does not start anything.
    await expect(detectSpeech(long, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(vadChildren()).toEqual([]);
  }, 30_000);
});

describe("detectSpeech input checks", () => {
  it("refuses audio that is not 16 kHz mono 16-bit PCM, and unusable settings", async () => {
    const stereo = file("stereo.wav");
    ffmpeg("-f", "lavfi", "-t", "1", "-i", "sine=frequency=440:sample_rate=44100", "-ac", "2", stereo);
    await expect(detectSpeech(stereo)).rejects.toThrow(/expected 16 kHz mono 16-bit PCM WAV.*2 channel\(s\), 44100 Hz/);
    const text = file("not-audio.wav");
    ffmpeg("-f", "lavfi", "-t", "1", "-i", "sine", "-f", "s16le", text);
    await expect(detectSpeech(text)).rejects.toThrow(/not a WAV file/);
    await expect(detectSpeech(file("missing.wav"))).rejects.toThrow(/ENOENT/);
    await expect(detectSpeech(stereo, { threshold: 1 })).rejects.toThrow(RangeError);
    await expect(detectSpeech(stereo, { minSilenceSeconds: 0 })).rejects.toThrow(RangeError);
    expect(vadChildren()).toEqual([]);
  });
});
