import os from "node:os";
import { childModule } from "../diarization/child.ts";
import { ModelProcess } from "./model-process.ts";
import type { EngineResult, TranscribeOptions, TranscriptionEngine } from "./port.ts";

const CHILD = childModule("sherpa-offline-child", import.meta.url);

export type SherpaFamily = "parakeet" | "sensevoice";

/** Parakeet TDT 0.6B v3's 25 European languages. */
export const PARAKEET_V3_LANGUAGES = [
  "bg",
  "hr",
  "cs",
  "da",
  "nl",
  "en",
  "et",
  "fi",
  "fr",
  "de",
  "el",
  "hu",
  "it",
  "lv",
  "lt",
  "mt",
  "pl",
  "pt",
  "ro",
  "sk",
  "sl",
  "es",
  "sv",
  "ru",
  "uk",
] as const;
/** SenseVoice-small's languages (Mandarin, English, Japanese, Korean, Cantonese). */
export const SENSEVOICE_LANGUAGES = ["zh", "en", "ja", "ko", "yue"] as const;

/** A NeMo transducer's files (Parakeet) or a single CTC model's (SenseVoice), with tokens.txt. */
export type SherpaModelFiles =
  | { encoder: string; decoder: string; joiner: string; tokens: string }
  | { model: string; tokens: string };

export interface SherpaOfflineModel {
  family: SherpaFamily;
  /** Model name shown on jobs ("parakeet-tdt-0.6b-v3-int8"). */
  name: string;
  files: SherpaModelFiles;
  /** Audio languages the model takes. */
  languages: readonly string[];
  /** The command that fetches the model, named when a file is missing. */
  pull?: string;
}

export interface SherpaOfflineEngineOptions {
  model: SherpaOfflineModel;
  /** Threads of the recognizer; default: every core. */
  threads?: number;
  /** A chunk taking longer than this is killed and fails (retried by the queue). */
  timeoutMs: number;
}

/** What the child reads from its environment. */
export interface SherpaChildConfig {
  family: SherpaFamily;
  label: string;
  files: SherpaModelFiles;
  threads: number;
  pull?: string;
}

/**
 * sherpa-onnx offline recognizers: `parakeet` (NeMo transducer, TDT 0.6B v3: 25 European languages,
 * v2: English) and `sensevoice` (SenseVoice-small CTC with the language hint and inverse text
 * normalisation). Word times come from the recognizer's tokens and timestamps. The model is loaded
 * once in a child process (ModelProcess), killed on abort, time-out and shutdown.
 */
export class SherpaOfflineEngine implements TranscriptionEngine {
  readonly kind: SherpaFamily;
  readonly name: string;
  readonly languages: readonly string[];
  private readonly proc: ModelProcess<{ wavPath: string; language: string }, EngineResult>;

  constructor(opts: SherpaOfflineEngineOptions) {
    const { model } = opts;
    this.kind = model.family;
    this.name = `${model.family}:${model.name}`;
    this.languages = model.languages;
    const config: SherpaChildConfig = {
      family: model.family,
      label: this.name,
      files: model.files,
      threads: opts.threads || Math.max(1, os.availableParallelism()),
      pull: model.pull,
    };
    this.proc = new ModelProcess({
      module: CHILD,
      env: { SHERPA_OFFLINE_CHILD: JSON.stringify(config) },
      label: this.name,
      timeoutMs: opts.timeoutMs,
    });
  }

  /** Loads the model and decodes a second of silence: a wrong or corrupt file fails here, at start. */
  async check(): Promise<void> {
    try {
      await this.proc.ensureReady();
    } catch (err) {
      const why = (err as Error).message;
      throw new Error(
        why.includes("model file missing")
          ? why
          : `the ${this.name} model could not be loaded (corrupt or wrong files?): ${why}`,
      );
    }
  }

  transcribe(wavPath: string, opts: TranscribeOptions): Promise<EngineResult> {
    return this.proc.run({ wavPath, language: opts.language }, opts.signal);
  }

  /** The child's process id while it runs. */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  async close(): Promise<void> {
    this.proc.kill();
  }
}
