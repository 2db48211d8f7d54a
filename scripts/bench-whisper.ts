// `npm run bench:whisper`: what whisper.cpp (through @napi-rs/whisper, the binding the transcription
// worker uses) costs per model on this CPU, for one 30-s window of real speech.
//
//   npm run bench:whisper -- [--models=tiny,base,small,large-v3-turbo] [--quants=f16,q8_0,q5_1]
//                            [--repeat=3] [--threads=1,2] [--max-tokens=100] [--no-cap-check]
//                            [--idle-wait=30] [--max-others=0.5]
//                            [--pipeline=base:q5_1,small:q5_1] [--pipeline-minutes=1,10] [--pipeline-only]
//
// Real weights cannot be downloaded here, so scripts/lib/ggml-synth.ts writes model files with the
// published tensor shapes and random weights into var/bench-models/ (kept between runs). The encoder's
// cost does not depend on weight values; the decoder is capped at --max-tokens decoded tokens per
// window (~100 for 30 s of speech), and every run counts whisper.cpp's encoder and decoder passes
// (through the binding's encoder-begin and abort callbacks, which whisper.cpp calls once per encode
// and once per decode call) to show that the cap holds and that no temperature fallback re-decoded the
// window. The default quantizations per model are f16, q8_0 and q5_1 (q5_0 for large-v3-turbo, the
// published quantized file); --quants replaces them for every model.
//
// Each model runs in a child process (this script with --child), so the blocking `full()` never runs on
// the bench's thread and the child's RSS is the model's. Audio: the LibriVox clips of Debian's
// pocketsphinx-testdata, decoded by ffmpeg to 16 kHz mono float and looped to 30 s.
//
// The machine is shared: before each timed run the bench waits (at most --idle-wait seconds) until other
// processes keep fewer than 0.25 cores busy, and every run reports its CPU time and how many cores other
// processes used meanwhile; a run during which they used more than --max-others cores (0.5) is logged
// and repeated (at most --repeat extra runs per configuration) instead of counted. The first full()
// after a load is a warm-up and is not counted. ggml's worker threads spin at their barriers, so with
// 2 threads on 2 busy cores a run can take several times longer; the CPU time of 1-thread runs is the
// steadiest figure.
//
// --pipeline times the worker's own compute path on whole recordings of speech (--pipeline-minutes,
// default 1 and 10): ffmpeg decode → Silero VAD → chunk plan → cut → the worker's WhisperEngine (one
// child process, --threads' largest count), for each model:quant listed, and prints seconds per audio
// second and the time a 60-minute recording would take at that rate. Model load is not counted (a
// worker keeps its model loaded). --pipeline-only skips the per-window measurement.
import { execFileSync, fork } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  checkMelFilters,
  ggmlTypeName,
  inspectGgmlModel,
  REFERENCE_TEST_MODEL,
  readReferenceAssets,
  syntheticModelFileName,
  WHISPER_QUANTS,
  WHISPER_SHAPES,
  type WhisperQuant,
  type WhisperShape,
  writeSyntheticWhisperModel,
} from "./lib/ggml-synth.ts";
import { loadedEngine, type PipelineTiming, speechRecording, timePipeline } from "./lib/whisper-pipeline-bench.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const MODEL_DIR = path.join(ROOT, "var/bench-models");
const AUDIO_FILE = path.join(MODEL_DIR, "librivox-30s-16k.f32");
const LIBRIVOX_DIR = "/usr/share/pocketsphinx/test/data/librivox";
const SAMPLE_RATE = 16_000;
const WINDOW_S = 30;

interface ModelInfo {
  nVocab: number;
  nAudioCtx: number;
  nAudioState: number;
  nAudioHead: number;
  nAudioLayer: number;
  nTextCtx: number;
  nTextState: number;
  nTextHead: number;
  nTextLayer: number;
  nMels: number;
  ftype: number;
  type: number;
  multilingual: number;
}

type ParentMessage = { type: "run"; nThreads: number; maxTokens: number } | { type: "exit" };

type ChildMessage =
  | { type: "loaded"; loadMs: number; loadCpuMs: number; rssBefore: number; rssAfter: number; info: ModelInfo }
  | { type: "fatal"; message: string }
  | {
      type: "ran";
      ms: number;
      cpuMs: number;
      encodes: number;
      computeCalls: number;
      segments: number;
      text: string;
    }
  | { type: "bye"; maxRss: number };

// ---------------------------------------------------------------------------------------------------
// Child: one model, runs on request.

async function childMain(modelPath: string, audioPath: string): Promise<void> {
  const send = (msg: ChildMessage) => process.send?.(msg);
  const { Whisper, WhisperFullParams, WhisperSamplingStrategy } = await import("@napi-rs/whisper");
  const raw = readFileSync(audioPath);
  const samples = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));

  const rssBefore = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let whisper: InstanceType<typeof Whisper>;
  try {
    whisper = new Whisper(modelPath);
  } catch (err) {
    send({ type: "fatal", message: (err as Error).message });
    process.exit(3);
  }
  const loadMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  send({
    type: "loaded",
    loadMs,
    loadCpuMs: (cpu.user + cpu.system) / 1000,
    rssBefore,
    rssAfter: process.memoryUsage().rss,
    info: {
      nVocab: whisper.modelNVocab,
      nAudioCtx: whisper.modelNAudioCtx,
      nAudioState: whisper.modelNAudioState,
      nAudioHead: whisper.modelNAudioHead,
      nAudioLayer: whisper.modelNAudioLayer,
      nTextCtx: whisper.modelNTextCtx,
      nTextState: whisper.modelNTextState,
      nTextHead: whisper.modelNTextHead,
      nTextLayer: whisper.modelNTextLayer,
      nMels: whisper.modelNMels,
      ftype: whisper.modelFtype,
      type: whisper.modelType,
      multilingual: whisper.isMultilingual,
    },
  });

  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
  process.on("message", async (msg: ParentMessage) => {
    if (msg.type === "exit") {
      send({ type: "bye", maxRss: process.resourceUsage().maxRSS * 1024 });
      setTimeout(() => process.exit(0), 50);
      return;
    }
    const params = new WhisperFullParams(WhisperSamplingStrategy.Greedy);
    params.nThreads = msg.nThreads;
    params.language = "en";
    params.detectLanguage = false;
    params.noContext = true;
    // One segment, no timestamp tokens: the window is decoded once, up to maxTokens tokens, and the
    // seek moves on by 30 s (with random weights, random timestamps would make whisper.cpp re-encode
    // from wherever the last timestamp pointed).
    params.noTimestamps = true;
    params.singleSegment = true;
    params.maxTokens = msg.maxTokens;
    params.printProgress = false;
    params.printRealtime = false;
    params.printTimestamps = false;
    let encodes = 0;
    let computeCalls = 0;
    let segments = 0;
    params.onEncoderBegin = () => {
      encodes++;
    };
    // whisper.cpp asks the abort callback once at the end of every encode and every decode call.
    params.onAbort = () => {
      computeCalls++;
    };
    params.onNewSegment = () => {
      segments++;
    };
    const c0 = process.cpuUsage();
    const start = performance.now();
    const text = whisper.full(params, samples);
    const ms = performance.now() - start;
    const c = process.cpuUsage(c0);
    // The callbacks are queued by the native thread and delivered now, through the event loop.
    // Every run encodes at least once, so wait for that, then until the counts stay put for 50 ms.
    let seen = -1;
    let stable = 0;
    for (let i = 0; i < 400 && stable < 10; i++) {
      const now = computeCalls + encodes + segments;
      stable = now === seen && encodes > 0 ? stable + 1 : 0;
      seen = now;
      await tick();
    }
    send({ type: "ran", ms, cpuMs: (c.user + c.system) / 1000, encodes, computeCalls, segments, text });
  });
}

// ---------------------------------------------------------------------------------------------------
// Parent

interface Options {
  models: WhisperShape[];
  quants: WhisperQuant[] | null;
  repeat: number;
  threads: number[];
  maxTokens: number;
  capCheck: boolean;
  /** Longest wait (s) before a run for the other processes on this shared machine to calm down. */
  idleWaitS: number;
  /** A run during which other processes kept more cores busy than this is repeated (up to `repeat` times). */
  maxOthers: number;
  /** Models (shape + quantization) whose whole pipeline is timed on recordings of `pipelineMinutes`. */
  pipeline: Array<{ model: WhisperShape; quant: WhisperQuant }>;
  pipelineMinutes: number[];
  pipelineOnly: boolean;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    models: ["tiny", "base", "small", "large-v3-turbo"],
    quants: null,
    repeat: 3,
    threads: [1, 2],
    maxTokens: 100,
    capCheck: true,
    idleWaitS: 30,
    maxOthers: 0.5,
    pipeline: [],
    pipelineMinutes: [1, 10],
    pipelineOnly: false,
  };
  const list = (v: string) =>
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  for (const arg of argv) {
    const [key, value = ""] = arg.replace(/^--/, "").split("=");
    if (key === "models") {
      const bad = list(value).filter((m) => !WHISPER_SHAPES.includes(m as WhisperShape));
      if (bad.length) throw new Error(`unknown model(s) ${bad.join(", ")}; known: ${WHISPER_SHAPES.join(", ")}`);
      opts.models = list(value) as WhisperShape[];
    } else if (key === "quants") {
      const bad = list(value).filter((q) => !WHISPER_QUANTS.includes(q as WhisperQuant));
      if (bad.length) throw new Error(`unknown quantization(s) ${bad.join(", ")}; known: ${WHISPER_QUANTS.join(", ")}`);
      opts.quants = list(value) as WhisperQuant[];
    } else if (key === "repeat") {
      opts.repeat = Math.max(1, Number.parseInt(value, 10) || 1);
    } else if (key === "threads") {
      opts.threads = list(value).map((t) => Math.max(1, Number.parseInt(t, 10) || 1));
    } else if (key === "max-tokens") {
      opts.maxTokens = Math.max(1, Number.parseInt(value, 10) || 100);
    } else if (key === "idle-wait") {
      opts.idleWaitS = Math.max(0, Number.parseFloat(value) || 0);
    } else if (key === "max-others") {
      opts.maxOthers = Number.parseFloat(value) || 0.5;
    } else if (key === "pipeline") {
      opts.pipeline = list(value).map((entry) => {
        const [model, quant = "f16"] = entry.split(":");
        if (!WHISPER_SHAPES.includes(model as WhisperShape)) throw new Error(`unknown model ${model} in --pipeline`);
        if (!WHISPER_QUANTS.includes(quant as WhisperQuant))
          throw new Error(`unknown quantization ${quant} in --pipeline`);
        return { model: model as WhisperShape, quant: quant as WhisperQuant };
      });
    } else if (key === "pipeline-minutes") {
      opts.pipelineMinutes = list(value).map((m) => Math.max(0.5, Number.parseFloat(m) || 1));
    } else if (key === "pipeline-only") {
      opts.pipelineOnly = true;
    } else if (key === "no-cap-check") {
      opts.capCheck = false;
    } else {
      throw new Error(`unknown argument ${arg}`);
    }
  }
  return opts;
}

function defaultQuants(model: WhisperShape): WhisperQuant[] {
  // The published quantized large-v3-turbo is q5_0 (ggml-large-v3-turbo-q5_0.bin).
  return model === "large-v3-turbo" ? ["f16", "q8_0", "q5_0"] : ["f16", "q8_0", "q5_1"];
}

const fmtS = (ms: number) => (ms / 1000).toFixed(2);
const fmtMB = (bytes: number) => (bytes / 1e6).toFixed(0);
const loadAvg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Busy and total jiffies of all CPUs (/proc/stat). */
function procStat(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + (steal || 0);
  return { busy, total: busy + idle + (iowait || 0) };
}

/** Cores kept busy between two procStat() samples. */
function busyCores(a: { busy: number; total: number }, b: { busy: number; total: number }): number {
  const total = b.total - a.total;
  return total > 0 ? ((b.busy - a.busy) / total) * os.cpus().length : 0;
}

const OTHERS_QUIET = 0.25;

/**
 * Waits (at most maxS) until the other processes keep fewer than OTHERS_QUIET cores busy, sampling
 * /proc/stat every second (our child is idle meanwhile). Returns the waited seconds and the last level.
 */
async function waitForQuiet(maxS: number): Promise<{ waitedS: number; others: number }> {
  const t0 = performance.now();
  let others = 0;
  do {
    const a = procStat();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    others = busyCores(a, procStat());
    if (others < OTHERS_QUIET) break;
  } while ((performance.now() - t0) / 1000 < maxS);
  return { waitedS: (performance.now() - t0) / 1000, others };
}

function cpuFlags(): { model: string; flags: Record<string, boolean> } {
  const info = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.*)$/m.exec(info)?.[1] ?? "unknown";
  const have = new Set((/^flags\s*:\s*(.*)$/m.exec(info)?.[1] ?? "").split(/\s+/));
  const flags: Record<string, boolean> = {};
  for (const f of ["avx", "avx2", "fma", "f16c", "avx512f"]) flags[f] = have.has(f);
  return { model, flags };
}

/** 30 s of 16 kHz mono float32: the LibriVox clips, concatenated and looped. Cached as raw f32. */
function prepareAudio(): { file: string; clips: number; speechS: number } {
  const clips = readdirSync(LIBRIVOX_DIR)
    .filter((f) => f.endsWith(".wav"))
    .sort()
    .map((f) => path.join(LIBRIVOX_DIR, f));
  if (clips.length === 0)
    throw new Error(`no LibriVox clips in ${LIBRIVOX_DIR} (apt-get install pocketsphinx-testdata)`);
  const parts = clips.map((clip) => {
    const pcm = execFileSync(
      "ffmpeg",
      ["-v", "error", "-i", clip, "-ac", "1", "-ar", String(SAMPLE_RATE), "-f", "f32le", "-"],
      {
        maxBuffer: 1 << 28,
      },
    );
    return new Float32Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
  });
  const speech = parts.reduce((n, p) => n + p.length, 0);
  const out = new Float32Array(WINDOW_S * SAMPLE_RATE);
  let o = 0;
  while (o < out.length) {
    for (const p of parts) {
      const take = Math.min(p.length, out.length - o);
      out.set(p.subarray(0, take), o);
      o += take;
      if (o >= out.length) break;
    }
  }
  writeFileSync(AUDIO_FILE, Buffer.from(out.buffer));
  return { file: AUDIO_FILE, clips: clips.length, speechS: speech / SAMPLE_RATE };
}

interface RunResult {
  ms: number;
  cpuMs: number;
  /** Cores kept busy by other processes during the run. */
  others: number;
  encodes: number;
  decodes: number;
  segments: number;
  text: string;
}

class Child {
  private readonly proc;
  private readonly queue: Array<(msg: ChildMessage) => void> = [];
  private readonly waiting: ChildMessage[] = [];
  private exited: string | null = null;

  constructor(modelPath: string) {
    const hasTsx = process.execArgv.some((a) => a.includes("tsx"));
    this.proc = fork(import.meta.filename, ["--child", modelPath, AUDIO_FILE], {
      execArgv: hasTsx ? process.execArgv : [...process.execArgv, "--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.proc.on("message", (msg: ChildMessage) => {
      const resolve = this.queue.shift();
      if (resolve) resolve(msg);
      else this.waiting.push(msg);
    });
    this.proc.on("exit", (code, signal) => {
      this.exited = `child exited (code ${code}, signal ${signal})`;
      for (const resolve of this.queue.splice(0)) resolve({ type: "fatal", message: this.exited });
    });
  }

  next(): Promise<ChildMessage> {
    const msg = this.waiting.shift();
    if (msg) return Promise.resolve(msg);
    if (this.exited) return Promise.resolve({ type: "fatal", message: this.exited });
    return new Promise((resolve) => this.queue.push(resolve));
  }

  async run(nThreads: number, maxTokens: number): Promise<RunResult> {
    const s0 = procStat();
    this.proc.send({ type: "run", nThreads, maxTokens } satisfies ParentMessage);
    const msg = await this.next();
    const s1 = procStat();
    if (msg.type !== "ran") throw new Error(msg.type === "fatal" ? msg.message : `unexpected ${msg.type}`);
    return {
      ms: msg.ms,
      cpuMs: msg.cpuMs,
      others: Math.max(0, busyCores(s0, s1) - msg.cpuMs / msg.ms),
      encodes: msg.encodes,
      // computeCalls = encodes + decode calls (one per decoding step; the first one is the prompt).
      decodes: msg.computeCalls - msg.encodes,
      segments: msg.segments,
      text: msg.text,
    };
  }

  async close(): Promise<number> {
    this.proc.send({ type: "exit" } satisfies ParentMessage);
    const msg = await this.next();
    return msg.type === "bye" ? msg.maxRss : 0;
  }

  kill(): void {
    if (!this.exited) this.proc.kill("SIGKILL");
  }
}

interface ConfigResult {
  model: WhisperShape;
  quant: WhisperQuant;
  fileBytes: number;
  loadMs: number;
  rssAfterLoad: number;
  maxRss: number;
  byThreads: Map<
    number,
    {
      times: number[];
      cpu: number[];
      others: number[];
      anomalies: string[];
      disturbed: number;
      includesDisturbed: boolean;
    }
  >;
}

function describeRun(r: RunResult, maxTokens: number): string {
  const util = r.cpuMs / r.ms;
  return (
    `${fmtS(r.ms)} s (cpu ${fmtS(r.cpuMs)} s = ${util.toFixed(2)} cores; others ${r.others.toFixed(2)} cores), ` +
    `encoder passes ${r.encodes}, decoder calls ${r.decodes} (cap ${maxTokens > 0 ? maxTokens : "none"}), ` +
    `segments ${r.segments}, text ${r.text.length} chars`
  );
}

/** A window decoded as intended: one encoder pass, prompt + at most maxTokens steps, no fallback. */
function anomalyOf(r: RunResult, maxTokens: number): string | null {
  if (r.encodes !== 1) return `${r.encodes} encoder passes`;
  if (r.decodes > maxTokens + 1) return `${r.decodes} decoder calls > ${maxTokens + 1} (temperature fallback?)`;
  if (r.decodes < maxTokens / 2) return `only ${r.decodes} decoder calls (early end of text)`;
  return null;
}

async function parentMain(opts: Options): Promise<void> {
  const started = new Date();
  const loadStart = loadAvg();
  const cpu = cpuFlags();
  const binding = JSON.parse(readFileSync(path.join(ROOT, "node_modules/@napi-rs/whisper/package.json"), "utf8"));
  console.log("# whisper.cpp bench (npm run bench:whisper)");
  console.log(`started ${started.toISOString()}, node ${process.version}, @napi-rs/whisper ${binding.version}`);
  console.log(`cpu: ${cpu.model}, ${os.cpus().length} logical cores, ${fmtMB(os.totalmem())} MB RAM`);
  console.log(
    `cpu flags: ${Object.entries(cpu.flags)
      .map(([f, on]) => `${f} ${on ? "yes" : "no"}`)
      .join(", ")}`,
  );
  console.log(`load average at start (1/5/15 min): ${loadStart}`);
  console.log(
    `options: models ${opts.models.join(",")}, quants ${opts.quants?.join(",") ?? "default"}, repeat ${opts.repeat}, ` +
      `threads ${opts.threads.join(",")}, max tokens ${opts.maxTokens}`,
  );

  await mkdir(MODEL_DIR, { recursive: true });
  const audio = prepareAudio();
  console.log(
    `audio: ${audio.clips} LibriVox clips (${audio.speechS.toFixed(1)} s of speech) looped to one ${WINDOW_S}-s window, ` +
      `16 kHz mono float (${path.relative(ROOT, audio.file)})`,
  );
  const melDiff = await checkMelFilters();
  const ref = await readReferenceAssets();
  console.log(
    `reference ${REFERENCE_TEST_MODEL}: ${ref.nMel}x${ref.nFft} mel filters, ${ref.vocabCount} vocabulary entries; ` +
      `computed 80-bin filters differ by at most ${melDiff.toExponential(1)}`,
  );

  const results: ConfigResult[] = [];
  for (const model of opts.pipelineOnly ? [] : opts.models) {
    for (const quant of opts.quants ?? defaultQuants(model)) {
      const label = `${model} ${quant}`;
      console.log(`\n## ${label} (load average ${loadAvg()})`);
      const out = path.join(MODEL_DIR, syntheticModelFileName(model, quant));
      const gen = await writeSyntheticWhisperModel({ shape: model, quant, out });
      const summary = await inspectGgmlModel(out);
      const byType = new Map<string, number>();
      for (const t of summary.tensors) byType.set(ggmlTypeName(t.type), (byType.get(ggmlTypeName(t.type)) ?? 0) + 1);
      console.log(
        `model file ${path.relative(ROOT, out)}: ${fmtMB(gen.bytes)} MB, ${gen.cached ? "cached" : `written in ${fmtS(gen.ms)} s`}, ` +
          `header ftype ${summary.hparams.ftype}, ${summary.tensors.length} tensors (${[...byType]
            .map(([k, v]) => `${v} ${k}`)
            .join(", ")})`,
      );
      if (model === "tiny" && quant === "f16") {
        const refBytes = readFileSync(REFERENCE_TEST_MODEL);
        const ours = readFileSync(out).subarray(0, refBytes.length);
        console.log(
          `layout check: header + mel filters + vocabulary ${ours.equals(refBytes) ? "==" : "!="} ` +
            `for-tests-ggml-tiny.bin byte for byte (${refBytes.length} bytes)`,
        );
      }

      const child = new Child(out);
      try {
        const loaded = await child.next();
        if (loaded.type !== "loaded")
          throw new Error(`${label}: ${loaded.type === "fatal" ? loaded.message : loaded.type}`);
        const i = loaded.info;
        console.log(
          `loaded in ${fmtS(loaded.loadMs)} s (cpu ${fmtS(loaded.loadCpuMs)} s); RSS ${fmtMB(loaded.rssBefore)} MB before, ` +
            `${fmtMB(loaded.rssAfter)} MB after load`,
        );
        console.log(
          `binding: modelNVocab ${i.nVocab}, modelNAudioCtx ${i.nAudioCtx}, modelNAudioState ${i.nAudioState}, ` +
            `modelNAudioHead ${i.nAudioHead}, modelNAudioLayer ${i.nAudioLayer}, modelNTextCtx ${i.nTextCtx}, ` +
            `modelNTextState ${i.nTextState}, modelNTextHead ${i.nTextHead}, modelNTextLayer ${i.nTextLayer}, ` +
            `modelNMels ${i.nMels}, modelFtype ${i.ftype}, modelType ${i.type}, isMultilingual ${i.multilingual}`,
        );

        // First full() after load pays for first-touch page faults of the compute buffers: not counted.
        const warm = await child.run(Math.max(...opts.threads), 1);
        console.log(`warm-up (maxTokens 1, not counted): ${describeRun(warm, 1)}`);

        if (opts.capCheck && results.length === 0) {
          // With random weights the decoder never emits end-of-text: show what the cap changes.
          const t = Math.min(...opts.threads);
          console.log(`cap check (${t} thread${t > 1 ? "s" : ""}):`);
          for (const maxTokens of [1, opts.maxTokens, 0]) {
            if (opts.idleWaitS > 0) await waitForQuiet(opts.idleWaitS);
            const r = await child.run(t, maxTokens);
            console.log(`  maxTokens ${maxTokens || "0 (no cap)"}: ${describeRun(r, maxTokens)}`);
          }
        }

        const result: ConfigResult = {
          model,
          quant,
          fileBytes: gen.bytes,
          loadMs: loaded.loadMs,
          rssAfterLoad: loaded.rssAfter,
          maxRss: 0,
          byThreads: new Map(),
        };
        for (const t of opts.threads) {
          const slot = {
            times: [] as number[],
            cpu: [] as number[],
            others: [] as number[],
            anomalies: [] as string[],
            disturbed: 0,
            includesDisturbed: false,
          };
          result.byThreads.set(t, slot);
          const disturbedRuns: RunResult[] = [];
          for (let attempt = 0; slot.times.length < opts.repeat && attempt < 2 * opts.repeat; attempt++) {
            if (opts.idleWaitS > 0) {
              const q = await waitForQuiet(opts.idleWaitS);
              if (q.others >= OTHERS_QUIET) {
                console.log(
                  `  (other processes still use ${q.others.toFixed(2)} cores after ${q.waitedS.toFixed(0)} s)`,
                );
              }
            }
            const r = await child.run(t, opts.maxTokens);
            const bad = anomalyOf(r, opts.maxTokens);
            if (bad) slot.anomalies.push(bad);
            const disturbed = r.others > opts.maxOthers;
            console.log(
              `  ${t} thread${t > 1 ? "s" : " "} run ${attempt + 1}: ${describeRun(r, opts.maxTokens)}` +
                (bad ? `  !! ${bad}` : "") +
                (disturbed ? `  (disturbed: others > ${opts.maxOthers} cores, not counted)` : ""),
            );
            if (disturbed) {
              slot.disturbed++;
              disturbedRuns.push(r);
              continue;
            }
            slot.times.push(r.ms);
            slot.cpu.push(r.cpuMs);
            slot.others.push(r.others);
          }
          if (slot.times.length === 0) {
            // Never quiet: report what we have, marked.
            slot.includesDisturbed = true;
            for (const r of disturbedRuns) {
              slot.times.push(r.ms);
              slot.cpu.push(r.cpuMs);
              slot.others.push(r.others);
            }
          }
          console.log(
            `  ${t} thread${t > 1 ? "s" : " "}: min ${fmtS(Math.min(...slot.times))} s, median ${fmtS(median(slot.times))} s ` +
              `per ${WINDOW_S}-s window, RTF ${(median(slot.times) / 1000 / WINDOW_S).toFixed(3)}, ` +
              `cpu median ${fmtS(median(slot.cpu))} s, others median ${median(slot.others).toFixed(2)} cores ` +
              `(${slot.times.length} runs${slot.disturbed ? `, ${slot.disturbed} disturbed run(s) left out` : ""})`,
          );
        }
        result.maxRss = await child.close();
        console.log(`peak RSS of the child: ${fmtMB(result.maxRss)} MB`);
        results.push(result);
      } finally {
        child.kill();
      }
    }
  }

  const pipelines = await pipelineBench(opts);
  const loadEnd = loadAvg();
  console.log(`\nload average at end (1/5/15 min): ${loadEnd} (start: ${loadStart})`);
  if (results.length) printTables(results, opts);
  if (pipelines.length) printPipelineTable(pipelines, opts);
}

interface PipelineResult {
  model: WhisperShape;
  quant: WhisperQuant;
  minutes: number;
  runs: PipelineTiming[];
}

/**
 * The worker's compute path on whole recordings, per model: decode, VAD, cut, whisper (one child
 * process with the largest thread count, as the worker runs by default). Each recording is timed
 * `repeat` times; between runs the bench waits for the machine to be quiet, like the window runs.
 */
async function pipelineBench(opts: Options): Promise<PipelineResult[]> {
  const out: PipelineResult[] = [];
  if (opts.pipeline.length === 0) return out;
  const threads = Math.max(...opts.threads);
  const recordings = opts.pipelineMinutes.map((minutes) => ({ minutes, file: speechRecording(MODEL_DIR, minutes) }));
  for (const { model, quant } of opts.pipeline) {
    const file = path.join(MODEL_DIR, syntheticModelFileName(model, quant));
    await writeSyntheticWhisperModel({ shape: model, quant, out: file });
    console.log(`\n## pipeline ${model} ${quant}, ${threads} threads (load average ${loadAvg()})`);
    const engine = await loadedEngine(file, threads, opts.maxTokens);
    try {
      // Warm-up: the first chunk after a load pays for first-touch page faults.
      await timePipeline(engine, recordings[0].file);
      for (const { minutes, file: recording } of recordings) {
        const result: PipelineResult = { model, quant, minutes, runs: [] };
        for (let i = 0; i < opts.repeat; i++) {
          if (opts.idleWaitS > 0) await waitForQuiet(opts.idleWaitS);
          const t = await timePipeline(engine, recording);
          result.runs.push(t);
          console.log(
            `  ${minutes} min run ${i + 1}: ${t.totalSeconds.toFixed(1)} s = ${(t.totalSeconds / t.audioSeconds).toFixed(3)} × audio ` +
              `(decode ${t.decodeSeconds.toFixed(2)} s, VAD ${t.vadSeconds.toFixed(2)} s, cut ${t.cutSeconds.toFixed(2)} s, ` +
              `whisper ${t.whisperSeconds.toFixed(1)} s; ${t.chunks} chunks, ${t.speechSeconds.toFixed(0)} s of speech in ` +
              `${t.audioSeconds.toFixed(0)} s)`,
          );
        }
        out.push(result);
      }
    } finally {
      await engine.close();
    }
  }
  return out;
}

function printPipelineTable(results: PipelineResult[], opts: Options): void {
  const head = [
    "model",
    "quant",
    "recording",
    "chunks",
    "min s",
    "median s",
    "× audio (median)",
    "60 min at that rate",
  ];
  const rows = results.map((r) => {
    const totals = r.runs.map((t) => t.totalSeconds);
    const ratio = median(totals) / r.runs[0].audioSeconds;
    const hour = ratio * 3600;
    return [
      r.model,
      r.quant,
      `${r.minutes} min`,
      String(r.runs[0].chunks),
      Math.min(...totals).toFixed(1),
      median(totals).toFixed(1),
      ratio.toFixed(3),
      `${(hour / 60).toFixed(1)} min`,
    ];
  });
  console.log(
    `\n### Pipeline time (decode + VAD + cut + whisper in the worker's engine, ${Math.max(...opts.threads)} threads, ` +
      `≤ ${opts.maxTokens} decoded tokens per chunk, ${opts.repeat} runs, model load not counted)\n`,
  );
  console.log(
    [
      `| ${head.join(" | ")} |`,
      `|${head.map(() => "---").join("|")}|`,
      ...rows.map((r) => `| ${r.join(" | ")} |`),
    ].join("\n"),
  );
}

function printTables(results: ConfigResult[], opts: Options): void {
  const tCols = opts.threads;
  const head = [
    "model",
    "quant",
    "file MB",
    "load s",
    "RSS MB",
    "peak RSS MB",
    ...tCols.flatMap((t) => [`${t}T min s`, `${t}T med s`, `${t}T RTF`, `${t}T cpu s`]),
    "others (cores)",
  ];
  const rows = results.map((r) => [
    r.model,
    r.quant,
    fmtMB(r.fileBytes),
    fmtS(r.loadMs),
    fmtMB(r.rssAfterLoad),
    fmtMB(r.maxRss),
    ...tCols.flatMap((t) => {
      const s = r.byThreads.get(t);
      if (!s || s.times.length === 0) return ["-", "-", "-", "-"];
      const flag = (s.anomalies.length ? "*" : "") + (s.includesDisturbed ? "~" : "");
      return [
        fmtS(Math.min(...s.times)) + flag,
        fmtS(median(s.times)) + flag,
        (median(s.times) / 1000 / WINDOW_S).toFixed(3),
        fmtS(median(s.cpu)),
      ];
    }),
    median([...r.byThreads.values()].flatMap((s) => s.others)).toFixed(2),
  ]);
  const table = (h: string[], rs: string[][]) =>
    [`| ${h.join(" | ")} |`, `|${h.map(() => "---").join("|")}|`, ...rs.map((r) => `| ${r.join(" | ")} |`)].join("\n");
  console.log(
    `\n### Cost per ${WINDOW_S}-s window (greedy, language en, ≤ ${opts.maxTokens} decoded tokens, ` +
      `${opts.repeat} undisturbed runs; RTF = median s / audio s; cpu = median CPU time of the child; others = cores kept ` +
      "busy by other processes during the runs (median); RSS of the child after load, and its peak)\n",
  );
  console.log(table(head, rows));
  if (results.some((r) => [...r.byThreads.values()].some((s) => s.anomalies.length))) {
    console.log("\n* some runs did not decode as intended (see the run lines above)");
  }
  if (results.some((r) => [...r.byThreads.values()].some((s) => s.includesDisturbed))) {
    console.log("\n~ only runs disturbed by other processes were available");
  }

  // Estimates: windows × seconds per window, with the largest thread count measured (2 by default).
  const tEst = Math.max(...tCols);
  const targets = [
    { label: "1 min", windows: 2, limitS: 15 },
    { label: "60 min", windows: 120, limitS: 15 * 60 },
  ];
  const estHead = [
    "model",
    "quant",
    `s/window (${tEst}T median)`,
    ...targets.map((x) => `${x.label} → (≤ ${x.limitS} s)`),
    "meets both",
  ];
  const estRows = results.map((r) => {
    const s = r.byThreads.get(tEst);
    const perWindow = s?.times.length ? median(s.times) / 1000 : Number.NaN;
    const cells = targets.map((x) => {
      const total = perWindow * x.windows;
      const shown = total >= 120 ? `${(total / 60).toFixed(1)} min` : `${total.toFixed(1)} s`;
      return `${shown} ${total <= x.limitS ? "yes" : "NO"}`;
    });
    const ok = targets.every((x) => perWindow * x.windows <= x.limitS);
    return [r.model, r.quant, perWindow.toFixed(2), ...cells, ok ? "yes" : "no"];
  });
  console.log(
    `\n### Estimated transcription time (${WINDOW_S}-s windows × median s/window with ${tEst} thread${tEst > 1 ? "s" : ""}; ` +
      "model load not included)\n",
  );
  console.log(table(estHead, estRows));
}

// ---------------------------------------------------------------------------------------------------

const childAt = process.argv.indexOf("--child");
if (childAt >= 0) {
  const [modelPath, audioPath] = process.argv.slice(childAt + 1);
  if (!modelPath || !existsSync(modelPath) || !audioPath) {
    console.error("usage: bench-whisper.ts --child <model.bin> <audio.f32>");
    process.exit(2);
  }
  await childMain(modelPath, audioPath);
} else {
  await parentMain(parseArgs(process.argv.slice(2)));
  process.exit(0);
}
