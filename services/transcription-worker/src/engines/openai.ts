import { createReadStream } from "node:fs";
import { AppError } from "@kikitori/shared";
import OpenAI, { toFile } from "openai";
import type { TranscribeOptions, TranscriptionEngine } from "./port.ts";

/**
 * Any OpenAI-compatible speech-to-text server through the `openai` SDK: OpenAI (whisper-1,
 * gpt-4o-transcribe), speaches / faster-whisper-server, vLLM, whisper.cpp's server. Language, file
 * type and speaker names go along as hints. Quality: that of the model behind it.
 */
export class OpenAiTranscriptionEngine implements TranscriptionEngine {
  readonly name: string;
  private readonly client: OpenAI;
  constructor(private readonly cfg: { baseURL?: string; apiKey: string; model: string; timeoutMs: number }) {
    this.client = new OpenAI({ apiKey: cfg.apiKey, baseURL: cfg.baseURL, timeout: cfg.timeoutMs, maxRetries: 2 });
    this.name = `openai:${cfg.model}`;
  }

  async check(): Promise<void> {
    // Nothing to verify offline; a wrong URL or key shows up on the first chunk with the server's message.
  }

  async transcribe(wavPath: string, opts: TranscribeOptions): Promise<string> {
    const hint = [`Recording type: ${opts.fileType}.`, opts.prompt ?? ""].join(" ").trim();
    try {
      const res = await this.client.audio.transcriptions.create({
        file: await toFile(createReadStream(wavPath), "chunk.wav", { type: "audio/wav" }),
        model: this.cfg.model,
        language: opts.language.split("-")[0],
        prompt: hint.slice(0, 800),
        response_format: "json",
      });
      return (res.text ?? "").trim();
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status && status >= 400 && status < 500 && status !== 408 && status !== 429) {
        throw new AppError(
          "TRANSCRIPTION_FAILED",
          `The speech server refused the audio (${status}): ${(err as Error).message}`,
          {
            retryable: false,
            cause: err,
          },
        );
      }
      throw err;
    }
  }
}
