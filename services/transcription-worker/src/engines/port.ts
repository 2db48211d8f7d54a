/** The speech-engine port: one WAV chunk (16 kHz mono) in, its text out. */
export interface TranscribeOptions {
  /** Language of the recording (ISO 639-1), as far as we know it. */
  language: string;
  /** File type chosen by the user (meeting, phonecall, …), passed on as a hint. */
  fileType: string;
  /** Names and context to bias recognition (speaker names, previous text). */
  prompt?: string;
}

export interface TranscriptionEngine {
  readonly name: string;
  /** Fails with a clear message when the engine cannot work (binary or model missing, server down). */
  check(): Promise<void>;
  transcribe(wavPath: string, opts: TranscribeOptions): Promise<string>;
}
