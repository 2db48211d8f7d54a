// One sherpa-onnx offline recognizer in its own process (forked by SherpaOfflineEngine through
// ModelProcess). Its decode() blocks the thread and a bad model file can abort the process, so the
// work runs here: the worker's event loop stays free, and abort, time-out and shutdown kill this process.
//
// Protocol (IPC): the parent sends {type:"run", id, wavPath, language}; the child answers
// {type:"result", id, value: {segments, language}} or {type:"error", id, message}. At start it loads
// the model, decodes one second of silence through it, and sends {type:"ready"} or {type:"fatal"}.
import { access, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { readWavMono16k } from "../wav.ts";
import type { EngineResult } from "./port.ts";
import type { SherpaChildConfig } from "./sherpa-offline.ts";
import { type SherpaResult, segmentsOfWords, type TimedWord, windowsOf, wordsOfResult } from "./sherpa-words.ts";

interface RunMessage {
  type: "run";
  id: number;
  wavPath: string;
  language: string;
}

interface Stream {
  acceptWaveform(w: { sampleRate: number; samples: Float32Array }): void;
}
interface Recognizer {
  createStream(): Stream;
  decode(stream: Stream): void;
  getResult(stream: Stream): SherpaResult & { text: string; lang?: string };
}

const RATE = 16_000;
/** Longest piece given to the recognizer at once (sherpa-onnx's offline models want ≤ ~30 s). */
const WINDOW_SECONDS = 28;

const require = createRequire(import.meta.url);
const cfg = JSON.parse(process.env.SHERPA_OFFLINE_CHILD ?? "{}") as SherpaChildConfig;
const send = (msg: unknown) => process.send?.(msg);

function recognizerConfig(language: string): unknown {
  const base = { tokens: cfg.files.tokens, numThreads: cfg.threads, debug: 0 };
  if ("encoder" in cfg.files) {
    const { encoder, decoder, joiner } = cfg.files;
    return {
      featConfig: { sampleRate: RATE, featureDim: 80 },
      modelConfig: { ...base, transducer: { encoder, decoder, joiner }, modelType: "nemo_transducer" },
      decodingMethod: "greedy_search",
    };
  }
  return {
    featConfig: { sampleRate: RATE, featureDim: 80 },
    modelConfig: {
      ...base,
      senseVoice: {
        model: cfg.files.model,
        language: language === "auto" ? "" : language,
        useInverseTextNormalization: 1,
      },
    },
    decodingMethod: "greedy_search",
  };
}

/**
 * SenseVoice's language hint is a recognizer setting: one recognizer per hint, the two used last kept
 * (a worker switching between two languages does not load the model again each time).
 */
const KEEP = 2;
const loaded = new Map<string, Recognizer>();
function recognizerFor(language: string): Recognizer {
  const key = cfg.family === "sensevoice" ? language : "any";
  let recognizer = loaded.get(key);
  if (recognizer) loaded.delete(key);
  else {
    const sherpa = require("sherpa-onnx-node") as { OfflineRecognizer: new (c: unknown) => Recognizer };
    recognizer = new sherpa.OfflineRecognizer(recognizerConfig(language));
  }
  loaded.set(key, recognizer);
  for (const old of loaded.keys()) if (loaded.size > KEEP) loaded.delete(old);
  return recognizer;
}

function decode(recognizer: Recognizer, samples: Float32Array) {
  const stream = recognizer.createStream();
  stream.acceptWaveform({ sampleRate: RATE, samples });
  recognizer.decode(stream);
  return recognizer.getResult(stream);
}

/** "<|ja|>" → "ja"; anything else → null. */
const tagLanguage = (tag: string | undefined) => /^<\|([a-z]{2,3})\|>$/.exec(tag ?? "")?.[1] ?? null;

function run(msg: RunMessage, samples: Float32Array): EngineResult {
  const recognizer = recognizerFor(msg.language);
  const words: TimedWord[] = [];
  let heard: string | null = null;
  for (const w of windowsOf(samples.length / RATE, WINDOW_SECONDS)) {
    const r = decode(recognizer, samples.subarray(Math.round(w.start * RATE), Math.round(w.end * RATE)));
    heard ??= tagLanguage(r.lang);
    words.push(...wordsOfResult(r, w.start, w.end - w.start));
  }
  const language = cfg.family === "sensevoice" ? (heard ?? nullIfAuto(msg.language)) : nullIfAuto(msg.language);
  return { segments: segmentsOfWords(words), language };
}

const nullIfAuto = (l: string) => (l === "auto" ? null : l);

async function start(): Promise<void> {
  for (const file of Object.values(cfg.files)) {
    await access(file).catch(() => {
      throw new Error(`${cfg.label} model file missing: ${file}${cfg.pull ? ` (run: ${cfg.pull})` : ""}`);
    });
  }
  // Loading alone proves little (a wrong input shows on a run): decode a second of silence.
  decode(recognizerFor(cfg.family === "sensevoice" ? "auto" : "en"), new Float32Array(RATE));
}

try {
  await start();
} catch (err) {
  send({ type: "fatal", message: (err as Error).message });
  process.exit(3);
}
send({ type: "ready", info: { family: cfg.family } });

process.on("message", (msg: RunMessage) => {
  if (msg?.type !== "run") return;
  readFile(msg.wavPath)
    .then((buf) => run(msg, readWavMono16k(buf)))
    .then(
      (value) => send({ type: "result", id: msg.id, value }),
      (err) => send({ type: "error", id: msg.id, message: (err as Error).message }),
    );
});
process.on("disconnect", () => process.exit(0));
