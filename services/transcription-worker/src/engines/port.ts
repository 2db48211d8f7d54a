import type { SpeechEngineName } from "@kikitori/shared";

/** The speech-engine port: one WAV chunk (16 kHz mono) in, its timed segments out. */
export interface TranscribeOptions {
  /** Audio language: a Whisper code, or "auto" to let the engine decide. */
  language: string;
  /** File type chosen by the user (meeting, phonecall, …), passed on as a hint. */
  fileType: string;
  /** Names and context to bias recognition (speaker names). */
  prompt?: string;
  /** Aborts the work (the engine's process is killed where it cannot stop otherwise). */
  signal?: AbortSignal;
}

/** A timed piece of text, in seconds from the start of the chunk given to the engine. */
export interface EngineSegment {
  start: number;
  end: number;
  text: string;
  words?: Array<{ start: number; end: number; text: string }>;
}

export interface EngineResult {
  segments: EngineSegment[];
  /** The language the engine heard or was told, where it says. */
  language: string | null;
}

export interface TranscriptionEngine {
  /** Engine and model, as shown on the job ("whisper:base", "pocketsphinx", "openai:whisper-1"). */
  readonly name: string;
  readonly kind: SpeechEngineName;
  /** Audio languages it takes: "all", or a list (pocketsphinx: ["en"]). */
  readonly languages: "all" | readonly string[];
  /** Fails with a clear message when the engine cannot work (binary or model missing, server down). */
  check(): Promise<void>;
  transcribe(wavPath: string, opts: TranscribeOptions): Promise<EngineResult>;
  /** Detects the spoken language of a (long, speech-rich) WAV; engines that cannot say return null. */
  detectLanguage?(wavPath: string, opts?: { signal?: AbortSignal }): Promise<string | null>;
  /**
   * True when the best engine for `language` has its model here but it failed to load, so a less
   * accurate engine takes the language (the job gets the `speech_fallback` notice). Engines that do
   * not route between engines have nothing to say.
   */
  routedAround?(language: string): boolean;
  /** Frees processes and memory (graceful shutdown). */
  close?(): Promise<void>;
}
