import { access } from "node:fs/promises";
import os from "node:os";
import type { SpeechStatus } from "@kikitori/shared";
import type { Logger } from "@kikitori/shared/server";
import type { TranscriptionWorkerConfig } from "../config.ts";
import { modelEntry, modelFile } from "../models/catalog.ts";
import { modelState } from "../models/download.ts";
import type { PocketSphinxEngine } from "./pocketsphinx.ts";
import type { TranscriptionEngine } from "./port.ts";
import { singleEngineRoutes } from "./routes.ts";
import { cpuProblem, WhisperEngine } from "./whisper.ts";

// The pieces of a speech setup at start that `whisper` and `auto` share (engines/index.ts, auto.ts).

/** What the worker runs with: the engine, what it tells the gateways, and chunks at once. */
export interface SpeechSetup {
  engine: TranscriptionEngine;
  status: SpeechStatus;
  chunkConcurrency: number;
}

const FIX_SETTING = "WHISPER_MODEL / MODELS_DIR (npm run models -- pull)";

/** Whisper cannot run here (model missing or unverified, CPU, load failure) and no fallback is allowed. */
export class SpeechModelUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`the Whisper engine cannot start: ${reason} (TRANSCRIPTION_FALLBACK=none)`);
    this.name = "SpeechModelUnavailableError";
  }
}

/** "whisper:base" → "base". */
export const whisperModelOf = (engine: TranscriptionEngine): string => engine.name.slice("whisper:".length);

/**
 * Loads the Whisper model in its process (one process with every core unless CHUNK_CONCURRENCY says
 * otherwise) and answers the engine, or why it cannot run here.
 */
export async function startWhisper(cfg: TranscriptionWorkerConfig, logger: Logger): Promise<WhisperEngine | string> {
  const cores = Math.max(1, os.availableParallelism());
  const processes = cfg.CHUNK_CONCURRENCY || 1;
  const threads = cfg.WHISPER_THREADS || Math.max(1, Math.floor(cores / processes));
  const problem = await whisperProblem(cfg);
  if (problem) return problem;
  const engine = new WhisperEngine({
    modelPath: cfg.WHISPER_MODEL_PATH ?? modelFile(cfg.MODELS_DIR, cfg.WHISPER_MODEL),
    modelName: cfg.WHISPER_MODEL_PATH ? modelLabel(cfg.WHISPER_MODEL_PATH) : cfg.WHISPER_MODEL,
    processes,
    threads,
    timeoutMs: cfg.WHISPER_CHUNK_TIMEOUT_MS,
  });
  try {
    await engine.check();
    logger.info({ engine: engine.name, processes, threads }, "whisper model loaded");
    return engine;
  } catch (err) {
    await engine.close();
    return (err as Error).message;
  }
}

/** Why whisper cannot run here (CPU, model file), or null. No hashing: the marker says it was checked. */
async function whisperProblem(cfg: TranscriptionWorkerConfig): Promise<string | null> {
  const cpu = cpuProblem();
  if (cpu) return cpu;
  if (cfg.WHISPER_MODEL_PATH) {
    try {
      await access(cfg.WHISPER_MODEL_PATH);
      return null;
    } catch {
      return `WHISPER_MODEL_PATH ${cfg.WHISPER_MODEL_PATH} does not exist`;
    }
  }
  const state = await modelState(cfg.MODELS_DIR, cfg.WHISPER_MODEL);
  if (state === "verified") return null;
  const file = modelFile(cfg.MODELS_DIR, cfg.WHISPER_MODEL);
  const size = `${modelEntry(cfg.WHISPER_MODEL).sizeMB} MB`;
  return state === "unverified"
    ? `the Whisper model ${file} is not verified against its checksum (run: npm run models -- verify ${cfg.WHISPER_MODEL})`
    : `no Whisper model "${cfg.WHISPER_MODEL}" in ${cfg.MODELS_DIR} (${size}; run: npm run models -- pull ${cfg.WHISPER_MODEL})`;
}

export function fallback(
  cfg: TranscriptionWorkerConfig,
  logger: Logger,
  reason: string,
  pocketsphinx: () => PocketSphinxEngine,
  chunkConcurrency: number,
): SpeechSetup {
  if (cfg.TRANSCRIPTION_FALLBACK === "none") {
    throw new SpeechModelUnavailableError(reason);
  }
  const engine = pocketsphinx();
  const notice = {
    code: "SPEECH_FALLBACK_ROUGH" as const,
    setting: FIX_SETTING,
    reason: `Whisper is not available: ${reason}.`,
  };
  logger.warn(
    { reason, engine: engine.name, setting: FIX_SETTING },
    "SPEECH ENGINE FALLBACK: Whisper is not available, English recordings use the rough offline pocketsphinx engine (about 30-55 % of words wrong on real speech, no punctuation) and other languages are refused. Fix: set WHISPER_MODEL / MODELS_DIR and run `npm run models -- pull`.",
  );
  return { engine, status: statusOf(engine, "en-us", notice), chunkConcurrency };
}

export function statusOf(
  engine: TranscriptionEngine,
  model: string | null,
  notice: SpeechStatus["notice"],
): SpeechStatus {
  return {
    available: true,
    engine: engine.kind,
    model,
    languages: engine.languages === "all" ? "all" : [...engine.languages],
    notice,
    routes: singleEngineRoutes(engine, model),
  };
}

/** "ggml-small.en-q5_1.bin" → "small.en-q5_1" (a file given by path). */
const modelLabel = (file: string) =>
  (file.split("/").pop() ?? file)
    .replace(/^ggml-/, "")
    .replace(/\.bin$/, "")
    .replace(/^for-tests-ggml-/, "test-");
