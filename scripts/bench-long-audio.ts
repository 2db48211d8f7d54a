// `npm run bench:long-audio`: the memory an hours-long recording costs the transcription worker's
// split step, which is all that looks at the whole recording: decode to WAV (ffmpeg to disk), find the
// speech (Silero VAD, window by window), tell the voices apart (the classic engine, span by span) and cut
// the chunks. Each stage is the worker's own function, run from one process.
//
// The recording is an Opus file of `--hours` hours: the two-voice test interview at the start, in the
// middle and at the end, and silence between. `--speech=continuous` fills the whole recording with the
// interview repeated instead, which is the worst case for diarization.
//
// Peak memory is the sum of the resident sets of this process and all its children (ffmpeg, the VAD and
// diarization processes), sampled every 100 ms from /proc. `--whole` also runs the classic engine the
// old way, with the whole recording read into memory, for comparison.
//
// `--diarization=sherpa` tells the voices apart with the sherpa-onnx engine instead, in 20-minute windows,
// with the model files in sherpa-onnx's formats that the tests generate (random weights: their cost and
// memory are those of these graphs, not of the real pyannote/TitaNet files; the point is what grows with
// the recording's length). `--whole` then runs it as one window, the way it ran before windows.
//
//   npm run bench:long-audio -- [--hours=3] [--speech=sparse|continuous] [--diarization=classic|sherpa] [--whole]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { cutWav, decodeToWav } from "../services/transcription-worker/src/audio.ts";
import { ClassicDiarizationEngine, diarizeSamples } from "../services/transcription-worker/src/diarization/classic.ts";
import { SherpaDiarizationEngine } from "../services/transcription-worker/src/diarization/sherpa.ts";
import { detectSpeech, planSpeechChunks } from "../services/transcription-worker/src/vad.ts";
import { readWavMono16k } from "../services/transcription-worker/src/wav.ts";
import { testOnnxModels } from "../tests/support/onnx-models.ts";

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const hours = Number(arg("hours", "3"));
const continuous = arg("speech", "sparse") === "continuous";
const whole = process.argv.includes("--whole");
const sherpa = arg("diarization", "classic") === "sherpa";
const FIXTURE = path.resolve(import.meta.dirname, "../tests/fixtures/audio/interview-en.mp3");

/** Resident memory (MB) of a process and all its descendants, from /proc. */
function treeRssMb(root: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const status = readFileSync(`/proc/${d}/status`, "utf8");
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      rss.set(Number(d), kb);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop() as number;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total / 1024;
}

/** Runs a stage while sampling the process tree's memory: its peak (MB) and its time (s). */
async function measure<T>(name: string, fn: () => Promise<T>): Promise<T> {
  let peak = treeRssMb(process.pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssMb(process.pid));
  }, 100);
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    peak = Math.max(peak, treeRssMb(process.pid));
    console.log(
      `${name.padEnd(34)} ${((performance.now() - t0) / 1000).toFixed(1).padStart(7)} s   peak ${peak.toFixed(0).padStart(5)} MB`,
    );
  }
}

function buildRecording(dir: string): string {
  const out = path.join(os.tmpdir(), `kikitori-long-${hours}h-${continuous ? "continuous" : "sparse"}.opus`);
  if (existsSync(out)) return out;
  const seconds = Math.round(hours * 3600);
  const speech = path.join(dir, "speech.wav");
  execFileSync("ffmpeg", ["-v", "error", "-y", "-i", FIXTURE, "-ac", "1", "-ar", "16000", speech]);
  const args = ["-v", "error", "-y"];
  if (continuous) {
    args.push("-stream_loop", "-1", "-i", speech, "-t", String(seconds));
  } else {
    // The interview at the start, in the middle and at the end; silence between.
    const gap = (seconds - 3 * 110) / 2;
    args.push(
      "-i",
      speech,
      "-i",
      speech,
      "-i",
      speech,
      "-filter_complex",
      `[1]adelay=${Math.round((110 + gap) * 1000)}[b];[2]adelay=${Math.round((220 + 2 * gap) * 1000)}[c];[0][b][c]amix=inputs=3:normalize=0,apad=whole_dur=${seconds}`,
      "-t",
      String(seconds),
    );
  }
  args.push("-ac", "1", "-ar", "16000", "-c:a", "libopus", "-b:a", "24k", out);
  execFileSync("ffmpeg", args);
  return out;
}

const dir = path.join(os.tmpdir(), `kikitori-bench-long-${process.pid}`);
mkdirSync(dir, { recursive: true });
try {
  console.log(
    `load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ${hours} h, ${continuous ? "continuous" : "sparse"} speech`,
  );
  const src = await measure("build the Opus recording", async () => buildRecording(dir));
  const wav = path.join(dir, "audio.wav");
  const { duration } = await measure("decode to WAV (ffmpeg)", () =>
    decodeToWav(src, wav, { format: "ogg", stream: 0, maxSeconds: hours * 3600 + 60 }),
  );
  const speech = await measure("find speech (VAD)", () => detectSpeech(wav));
  const speechSeconds = speech.reduce((t, s) => t + s.end - s.start, 0);
  console.log(`  ${duration.toFixed(0)} s of audio, ${speech.length} spans, ${speechSeconds.toFixed(0)} s of speech`);
  if (sherpa) {
    const models = testOnnxModels();
    const paths = { segmentation: models.segmentation, embedding: models.embedding };
    const spans = await measure("tell voices apart (sherpa, windows)", () =>
      new SherpaDiarizationEngine(paths).diarize(wav, speech),
    );
    console.log(`  ${new Set(spans.map((s) => s.speaker)).size} speakers, ${spans.length} turns`);
    if (whole) {
      await measure("  same, one window (as before)", () =>
        new SherpaDiarizationEngine(paths, Number.POSITIVE_INFINITY).diarize(wav, speech),
      );
    }
  }
  const spans = sherpa
    ? []
    : await measure("tell voices apart (classic)", () => new ClassicDiarizationEngine().diarize(wav, speech));
  if (!sherpa) console.log(`  ${new Set(spans.map((s) => s.speaker)).size} speakers, ${spans.length} turns`);
  if (whole && !sherpa) {
    await measure("  same, whole recording in memory", async () =>
      diarizeSamples(readWavMono16k(await readFile(wav)), speech),
    );
  }
  const plan = planSpeechChunks(speech, duration, { target: 30 });
  await measure(`cut ${plan.length} chunks`, async () => {
    for (const [i, c] of plan.entries()) await cutWav(wav, c.start, c.end, path.join(dir, `chunk-${i}.wav`));
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
