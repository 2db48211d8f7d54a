// The transcription pipeline's own compute path, timed end to end on a recording of speech:
// ffmpeg decode → Silero VAD → chunk plan → cut → whisper per chunk (the worker's WhisperEngine, child
// processes and all). What the worker adds around it (object store, Postgres, queue) is milliseconds
// per chunk. Used by scripts/bench-whisper.ts (`--pipeline`).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ffmpegPath, sniffAudioFile } from "@kikitori/shared/server";
import { cutWav, decodeToWav } from "../../services/transcription-worker/src/audio.ts";
import { WhisperEngine } from "../../services/transcription-worker/src/engines/whisper.ts";
import { detectSpeech, planSpeechChunks } from "../../services/transcription-worker/src/vad.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SPEECH = path.join(ROOT, "tests/fixtures/audio/interview-en.mp3");

/**
 * An MP3 of `minutes` of two-voice interview speech (the 61-s test fixture, synthetic voices with
 * natural pauses, looped), as a user would upload it. Cached in `dir`.
 */
export function speechRecording(dir: string, minutes: number): string {
  const out = path.join(dir, `speech-${minutes}min.mp3`);
  if (existsSync(out)) return out;
  execFileSync(ffmpegPath(), [
    "-v",
    "error",
    "-y",
    "-stream_loop",
    "-1",
    "-i",
    SPEECH,
    "-t",
    String(minutes * 60),
    "-ac",
    "1",
    "-b:a",
    "64k",
    out,
  ]);
  return out;
}

export interface PipelineTiming {
  audioSeconds: number;
  speechSeconds: number;
  chunks: number;
  decodeSeconds: number;
  vadSeconds: number;
  cutSeconds: number;
  whisperSeconds: number;
  totalSeconds: number;
}

/** Runs the pipeline once on `recording` with a loaded engine (model load is not counted: workers keep it loaded). */
export async function timePipeline(
  engine: WhisperEngine,
  recording: string,
  chunkSeconds = 30,
): Promise<PipelineTiming> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-bench-"));
  try {
    const t0 = performance.now();
    const wav = path.join(dir, "audio.wav");
    const head = readFileSync(recording).subarray(0, 8192);
    const format = await sniffAudioFile(recording, head);
    if (!format) throw new Error(`${recording}: not an accepted audio format`);
    const { duration } = await decodeToWav(recording, wav, { format, stream: 0 });
    const t1 = performance.now();
    const speech = await detectSpeech(wav);
    const plan = planSpeechChunks(speech, duration, { target: chunkSeconds });
    const t2 = performance.now();
    const files: string[] = [];
    for (const [i, c] of plan.entries()) {
      const f = path.join(dir, `c${i}.wav`);
      await cutWav(wav, c.start, c.end, f);
      files.push(f);
    }
    const t3 = performance.now();
    for (const f of files) await engine.transcribe(f, { language: "en", fileType: "meeting" });
    const t4 = performance.now();
    return {
      audioSeconds: duration,
      speechSeconds: speech.reduce((t, s) => t + s.end - s.start, 0),
      chunks: plan.length,
      decodeSeconds: (t1 - t0) / 1000,
      vadSeconds: (t2 - t1) / 1000,
      cutSeconds: (t3 - t2) / 1000,
      whisperSeconds: (t4 - t3) / 1000,
      totalSeconds: (t4 - t0) / 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A loaded engine for `modelPath` with the worker's defaults (one process, every core) and a token cap. */
export async function loadedEngine(modelPath: string, threads: number, maxTokens: number): Promise<WhisperEngine> {
  const engine = new WhisperEngine({
    modelPath,
    modelName: path.basename(modelPath),
    processes: 1,
    threads,
    timeoutMs: 3_600_000,
    maxTokens,
  });
  await engine.check();
  return engine;
}
