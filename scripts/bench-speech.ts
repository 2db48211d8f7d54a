// `npm run bench:speech`: what each speech engine costs per minute of speech on this machine, through
// the worker's own engine classes and child processes, on 1 and 10 minutes of real speech (the
// interview fixture, looped).
//
//   npm run bench:speech -- [--minutes=1,10] [--threads=2] [--engines=parakeet,sensevoice,whisper,pocketsphinx]
//
// Real weights cannot be downloaded here. Parakeet and SenseVoice run twice: once with graphs of Parakeet
// TDT 0.6B's and SenseVoice-small's published shapes and int8 layers (scripts/make-bench-onnx-models.py,
// random weights, written once into var/bench-models/; an encoder's cost depends on its shapes, not its
// weights; the rows name the approximations), and once with the model files of
// scripts/make-test-onnx-models.py: exactly the real exports' formats (inputs, outputs, metadata,
// tokens), but graphs far smaller than the real models, so their time is that of everything around the
// model (feature extraction, decoding, word times, IPC), NOT the model's compute: the output says so
// on every such row, and prints the published real-time factors beside them as "published".
// Whisper runs the model in MODELS_DIR (WHISPER_MODEL) or WHISPER_MODEL_PATH when there is one
// (`npm run bench:whisper` times real-shaped Whisper graphs); pocketsphinx runs its real model.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { decodeToWav } from "../services/transcription-worker/src/audio.ts";
import { loadConfig } from "../services/transcription-worker/src/config.ts";
import { startWhisper } from "../services/transcription-worker/src/engines/index.ts";
import { PocketSphinxEngine } from "../services/transcription-worker/src/engines/pocketsphinx.ts";
import type { TranscriptionEngine } from "../services/transcription-worker/src/engines/port.ts";
import { SherpaOfflineEngine } from "../services/transcription-worker/src/engines/sherpa-offline.ts";
import { sherpaTestModels, testOnnxModels } from "../tests/support/onnx-models.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const MP3 = path.join(REPO, "tests/fixtures/audio/interview-en.mp3");

/** Published real-time factors (compute seconds per audio second) with their source; Whisper's from bench:whisper. */
const PUBLISHED: Record<string, string> = {
  parakeet: "RTF 0.028 (Parakeet TDT 0.6B v3 int8, Silero VAD, 2 threads: 60 min in under 2 min; sherpa-onnx docs)",
  sensevoice: "RTF ~0.1 (SenseVoice-small int8, 1 thread; sherpa-onnx docs)",
  whisper:
    "measured by npm run bench:whisper (real-shaped ggml, 2 threads): base 5.3 s and small 17.8 s per minute of speech (README)",
  pocketsphinx: "— (real model here)",
};

/** What the generated graphs are next to the real models. */
const REAL_SHAPES = "Parakeet TDT 0.6B shapes, int8 (approximations: rel-pos term over T not 2T-1, LSTM as lookup)";

const SV_SHAPES = "SenseVoice-small shapes, int8 (70 SAN-M layers x 512, CTC over 25055 pieces)";

/** The real-shaped models' directory (parakeet/, sense-voice/), written once per version of the generator. */
function realShapedModels(): string {
  const script = path.join(REPO, "scripts/make-bench-onnx-models.py");
  const hash = createHash("sha256").update(readFileSync(script)).digest("hex").slice(0, 12);
  const dir = path.join(REPO, "var/bench-models", `sherpa-shapes-${hash}`);
  if (!existsSync(path.join(dir, "parakeet", "tokens.txt"))) {
    const tmp = `${dir}.${process.pid}.tmp`;
    execFileSync(process.env.KIKITORI_ONNX_PYTHON ?? "/usr/bin/python3", [script, tmp], { stdio: "inherit" });
    renameSync(tmp, dir);
  }
  return dir;
}

const SMALLER: Record<string, string> = {
  parakeet:
    "graph SMALLER than the real model (1 conv layer, 32 dims vs FastConformer 24 x 1024): not the model's cost",
  sensevoice:
    "graph SMALLER than the real model (1 MatMul vs the ~234 M-parameter SAN-M encoder): not the model's cost",
};

function arg(name: string, fallback: string): string {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : fallback;
}

async function engines(
  threads: number,
  wanted: string[],
): Promise<Array<{ engine: TranscriptionEngine; graph: string }>> {
  const out: Array<{ engine: TranscriptionEngine; graph: string }> = [];
  const models = sherpaTestModels(testOnnxModels());
  if (wanted.includes("parakeet")) {
    const d = path.join(realShapedModels(), "parakeet");
    const f = (n: string) => path.join(d, n);
    const files = {
      encoder: f("encoder.int8.onnx"),
      decoder: f("decoder.int8.onnx"),
      joiner: f("joiner.int8.onnx"),
      tokens: f("tokens.txt"),
    };
    const model = { family: "parakeet" as const, name: "tdt-0.6b-shape", files, languages: ["en"] };
    out.push({ engine: new SherpaOfflineEngine({ model, threads, timeoutMs: 3_600_000 }), graph: REAL_SHAPES });
  }
  if (wanted.includes("parakeet"))
    out.push({
      engine: new SherpaOfflineEngine({ model: models.parakeet, threads, timeoutMs: 3_600_000 }),
      graph: SMALLER.parakeet,
    });
  if (wanted.includes("sensevoice")) {
    const d = path.join(realShapedModels(), "sense-voice");
    const files = { model: path.join(d, "model.int8.onnx"), tokens: path.join(d, "tokens.txt") };
    const model = { family: "sensevoice" as const, name: "small-shape", files, languages: ["en", "ja"] };
    out.push({ engine: new SherpaOfflineEngine({ model, threads, timeoutMs: 3_600_000 }), graph: SV_SHAPES });
  }
  if (wanted.includes("sensevoice"))
    out.push({
      engine: new SherpaOfflineEngine({ model: models.sensevoice, threads, timeoutMs: 3_600_000 }),
      graph: SMALLER.sensevoice,
    });
  if (wanted.includes("whisper")) {
    const cfg = loadConfig({
      ...process.env,
      MODELS_DIR: process.env.MODELS_DIR ?? path.join(REPO, "var/models"),
      WHISPER_THREADS: String(threads),
    });
    const whisper = await startWhisper(cfg, pino({ level: "silent" }));
    if (typeof whisper === "string") console.log(`whisper: skipped (${whisper})`);
    else out.push({ engine: whisper, graph: "real model file" });
  }
  if (wanted.includes("pocketsphinx")) {
    const ps = new PocketSphinxEngine({
      bin: "pocketsphinx_continuous",
      modelDir: "/usr/share/pocketsphinx/model/en-us",
    });
    try {
      await ps.check();
      out.push({ engine: ps, graph: "real model" });
    } catch (err) {
      console.log(`pocketsphinx: skipped (${(err as Error).message})`);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const minutes = arg("minutes", "1,10").split(",").map(Number);
  const threads = Number(arg("threads", "2"));
  const wanted = arg("engines", "parakeet,sensevoice,whisper,pocketsphinx").split(",");
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-bench-speech-"));
  try {
    const base = path.join(dir, "interview.wav");
    await decodeToWav(MP3, base, { format: "mp3", stream: 0 });
    const wavs = minutes.map((m) => {
      const file = path.join(dir, `${m}min.wav`);
      execFileSync("sox", [base, file, "repeat", String(Math.ceil(m) + 1), "trim", "0", String(m * 60)]);
      return { minutes: m, file };
    });
    const load = () => os.loadavg()[0].toFixed(2);
    console.log(
      `bench:speech — ${os.cpus().length} cores (${os.cpus()[0]?.model}), ${threads} threads per engine, load average ${load()} at start\n`,
    );
    const rows: string[][] = [["engine", "audio", "wall s", "s per audio min", "RTF", "graph"]];
    for (const { engine, graph } of await engines(threads, wanted)) {
      await engine.check();
      // Model load and first run not counted (a worker keeps its model loaded): one run on the shortest file.
      await engine.transcribe(wavs[0].file, { language: "en", fileType: "interview" });
      for (const w of wavs) {
        const t0 = process.hrtime.bigint();
        const r = await engine.transcribe(w.file, { language: "en", fileType: "interview" });
        const s = Number(process.hrtime.bigint() - t0) / 1e9;
        const words = r.segments.reduce((n, seg) => n + (seg.words?.length ?? 0), 0);
        rows.push([
          engine.name,
          `${w.minutes} min`,
          s.toFixed(2),
          (s / w.minutes).toFixed(2),
          (s / (w.minutes * 60)).toFixed(4),
          `${graph}; ${r.segments.length} segments, ${words} timed words`,
        ]);
      }
      await engine.close?.();
    }
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows)
      console.log(
        r
          .map((c, i) => c.padEnd(widths[i]))
          .join("  ")
          .trimEnd(),
      );
    console.log(`\nload average ${load()} at the end (other processes on this machine slow every row)`);
    console.log("\npublished (real models, not measured by this bench):");
    for (const [k, v] of Object.entries(PUBLISHED)) console.log(`  ${k.padEnd(12)} ${v}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!existsSync(MP3)) throw new Error(`missing ${MP3}`);
await main();
