// One whisper.cpp context in its own process (forked by WhisperEngine). `full()` of the binding blocks
// the thread it runs on and cannot be aborted, so the work runs here: the worker's event loop stays
// free, and cancel, time-outs and shutdown kill this process. The model is loaded once per process.
//
// Protocol (IPC, ModelProcess's): the parent sends {type:"run", id, wavPath, language, prompt,
// detectOnly}; the child answers {type:"result", id, value: {segments, language}} or {type:"error", id,
// message}. At start it sends {type:"ready", info} or {type:"fatal", message} and exits.
import { readFile } from "node:fs/promises";
import { Whisper, WhisperFullParams, WhisperSamplingStrategy } from "@napi-rs/whisper";
import { readWavMono16k } from "../wav.ts";

interface RunMessage {
  type: "run";
  id: number;
  wavPath: string;
  language: string;
  prompt?: string;
  detectOnly?: boolean;
}

const modelPath = process.env.WHISPER_CHILD_MODEL ?? "";
const threads = Number(process.env.WHISPER_CHILD_THREADS ?? "2") || 2;
const maxTokens = Number(process.env.WHISPER_CHILD_MAX_TOKENS ?? "0") || 0;
const send = (msg: unknown) => process.send?.(msg);

let whisper: Whisper;
try {
  whisper = new Whisper(await readFile(modelPath));
} catch (err) {
  send({ type: "fatal", message: `could not load the Whisper model ${modelPath}: ${(err as Error).message}` });
  process.exit(3);
}
send({
  type: "ready",
  info: {
    multilingual: whisper.isMultilingual === 1,
    audioLayers: whisper.modelNAudioLayer,
    textLayers: whisper.modelNTextLayer,
    audioState: whisper.modelNAudioState,
    mels: whisper.modelNMels,
    vocab: whisper.modelNVocab,
  },
});

/** Lets the binding's queued segment callbacks run (they are delivered to this thread after full()). */
const drain = () => new Promise((resolve) => setTimeout(resolve, 0));

async function run(msg: RunMessage) {
  const samples = readWavMono16k(await readFile(msg.wavPath));
  const params = new WhisperFullParams(WhisperSamplingStrategy.Greedy);
  params.nThreads = threads;
  params.language = msg.language || "auto";
  params.detectLanguage = Boolean(msg.detectOnly);
  // No conditioning on earlier text: it is what lets Whisper fall into repetition loops.
  params.noContext = true;
  params.suppressBlank = true;
  params.suppressNonSpeechTokens = true;
  params.printProgress = false;
  params.printRealtime = false;
  params.printTimestamps = false;
  if (maxTokens > 0) {
    // Benchmarks only (random weights): one segment per chunk without timestamp tokens, decoded once
    // up to maxTokens, as a real model decodes a chunk of speech (random timestamps would make
    // whisper.cpp seek back and encode the window again).
    params.maxTokens = maxTokens;
    params.singleSegment = true;
    params.noTimestamps = true;
  }
  if (msg.prompt) params.initialPrompt = msg.prompt;
  const segments: Array<{ start: number; end: number; text: string }> = [];
  params.onNewSegment = (s) => {
    // whisper.cpp times are in 10 ms steps.
    segments.push({ start: s.start / 100, end: s.end / 100, text: s.text });
  };
  const text = whisper.full(params, samples);
  // Segment callbacks arrive through the event loop after full() returned: wait until they stop.
  let seen = -1;
  for (let i = 0; i < 50 && seen !== segments.length; i++) {
    seen = segments.length;
    await drain();
    await drain();
  }
  const id = whisper.fullLangId;
  const language = id >= 0 ? Whisper.lang(id) : null;
  if (segments.length === 0 && text.trim() && !msg.detectOnly) {
    segments.push({ start: 0, end: samples.length / 16_000, text: text.trim() });
  }
  return { segments: msg.detectOnly ? [] : segments, language };
}

// One message at a time: the parent never sends a second run before the first answered.
process.on("message", (msg: RunMessage) => {
  if (msg?.type !== "run") return;
  run(msg).then(
    (r) => send({ type: "result", id: msg.id, value: r }),
    (err) => send({ type: "error", id: msg.id, message: (err as Error).message }),
  );
});
process.on("disconnect", () => process.exit(0));
