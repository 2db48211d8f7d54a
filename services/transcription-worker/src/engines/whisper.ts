import { readFileSync } from "node:fs";
import os from "node:os";
import { childModule } from "../diarization/child.ts";
import { ModelProcess } from "./model-process.ts";
import type { EngineResult, TranscribeOptions, TranscriptionEngine } from "./port.ts";

const CHILD = childModule("whisper-child", import.meta.url);

export interface WhisperEngineOptions {
  /** ggml model file (checked against its SHA-1 by the model manager before it gets here). */
  modelPath: string;
  /** Name shown on jobs: "whisper:<model>". */
  modelName: string;
  /** Processes, each with one loaded model (CHUNK_CONCURRENCY). */
  processes: number;
  /** Threads per process (WHISPER_THREADS). */
  threads: number;
  /** A chunk taking longer than this is killed and fails (retried by the queue). */
  timeoutMs: number;
  /** Decoded tokens per window, 0 = whisper.cpp's default (benchmarks cap it). */
  maxTokens?: number;
}

type WhisperRequest = { wavPath: string; language: string; prompt?: string; detectOnly?: boolean };
type WhisperAnswer = { segments: EngineResult["segments"]; language: string | null };

/** One forked whisper-child process with its model loaded (ModelProcess), taken by one request at a time. */
class WhisperProcess {
  private readonly process: ModelProcess<WhisperRequest, WhisperAnswer>;
  busy = false;
  /** What the loaded model is (multilingual or English-only), once loaded. */
  info: { multilingual: boolean } | null = null;

  constructor(opts: WhisperEngineOptions) {
    this.process = new ModelProcess({
      module: CHILD,
      env: {
        WHISPER_CHILD_MODEL: opts.modelPath,
        WHISPER_CHILD_THREADS: String(opts.threads),
        WHISPER_CHILD_MAX_TOKENS: String(opts.maxTokens ?? 0),
      },
      label: "whisper",
      timeoutMs: opts.timeoutMs,
    });
  }

  /** Loads the model (once per process life). */
  async ensureReady(): Promise<void> {
    this.info = ((await this.process.ensureReady()) as { multilingual: boolean } | undefined) ?? null;
  }

  run(req: WhisperRequest, signal?: AbortSignal): Promise<WhisperAnswer> {
    return this.process.run(req, signal);
  }

  kill(): void {
    this.process.kill();
  }
}

/**
 * Embedded whisper.cpp (ggml models, ~100 languages, timed segments) through `@napi-rs/whisper`,
 * whose prebuilt linux-x64 binary is compiled with AVX/AVX2/FMA/F16C (docs/decisions/0015). Each of
 * `processes` child processes holds one loaded model and runs one chunk at a time with `threads`
 * threads; a chunk past `timeoutMs`, an aborted one and shutdown kill the process (the next request
 * starts a new one).
 */
export class WhisperEngine implements TranscriptionEngine {
  readonly kind = "whisper" as const;
  readonly name: string;
  /** Every language, but English alone for the `.en` models (known once the model loaded). */
  languages: "all" | readonly string[] = "all";
  private readonly pool: WhisperProcess[];
  private readonly waiters: Array<() => void> = [];

  constructor(opts: WhisperEngineOptions) {
    this.name = `whisper:${opts.modelName}`;
    this.pool = Array.from({ length: Math.max(1, opts.processes) }, () => new WhisperProcess(opts));
  }

  /** Loads the model in one process: a corrupt or wrong file fails here, at start, not on a job. */
  async check(): Promise<void> {
    const cpu = cpuProblem();
    if (cpu) throw new Error(cpu);
    await this.pool[0].ensureReady();
    if (this.pool[0].info && !this.pool[0].info.multilingual) this.languages = ["en"];
  }

  private async acquire(): Promise<WhisperProcess> {
    for (;;) {
      const free = this.pool.find((p) => !p.busy);
      if (free) {
        free.busy = true;
        return free;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private release(p: WhisperProcess): void {
    p.busy = false;
    this.waiters.shift()?.();
  }

  private async use<T>(fn: (p: WhisperProcess) => Promise<T>): Promise<T> {
    const p = await this.acquire();
    try {
      return await fn(p);
    } finally {
      this.release(p);
    }
  }

  async transcribe(wavPath: string, opts: TranscribeOptions): Promise<EngineResult> {
    return this.use((p) => p.run({ wavPath, language: opts.language, prompt: opts.prompt }, opts.signal));
  }

  async detectLanguage(wavPath: string, opts: { signal?: AbortSignal } = {}): Promise<string | null> {
    const r = await this.use((p) => p.run({ wavPath, language: "auto", detectOnly: true }, opts.signal));
    return r.language;
  }

  async close(): Promise<void> {
    for (const p of this.pool) p.kill();
  }
}

/**
 * Why this CPU cannot run the prebuilt whisper binary (it uses AVX, AVX2, FMA and F16C: on a CPU
 * without them it would die of an illegal instruction), or null. Only x86-64 Linux is checked.
 */
export function cpuProblem(cpuinfo = readCpuinfo(), arch = os.arch()): string | null {
  if (arch !== "x64" || cpuinfo === null) return null;
  const flags = new Set((/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1] ?? "").trim().split(/\s+/));
  const missing = ["avx", "avx2", "fma", "f16c"].filter((f) => !flags.has(f));
  return missing.length
    ? `this CPU lacks ${missing.join(", ")}, which the embedded Whisper build needs; use TRANSCRIPTION_ENGINE=openai with a speech server, or a machine with AVX2`
    : null;
}

function readCpuinfo(): string | null {
  try {
    return readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return null;
  }
}
