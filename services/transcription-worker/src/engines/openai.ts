import { createReadStream } from "node:fs";
import { AppError, parseAudioLanguage, WHISPER_LANGUAGES } from "@kikitori/shared";
import { createOpenAiClient, isRetryableStatus } from "@kikitori/shared/openai";
import { type OpenAI, toFile } from "openai";
import type { EngineResult, EngineSegment, TranscribeOptions, TranscriptionEngine } from "./port.ts";

/**
 * Any OpenAI-compatible speech-to-text server through the `openai` SDK: OpenAI (whisper-1,
 * gpt-4o-transcribe), speaches / faster-whisper-server, vLLM, whisper.cpp's server. Language, file
 * type and speaker names go along as hints. Quality: that of the model behind it.
 */
export class OpenAiTranscriptionEngine implements TranscriptionEngine {
  readonly name: string;
  readonly kind = "openai" as const;
  readonly languages = "all" as const;
  /** Set once the server answered verbose_json with an error: it only does plain text. */
  private plainOnly = false;
  private readonly client: OpenAI;
  constructor(private readonly cfg: { baseURL?: string; apiKey: string; model: string; timeoutMs: number }) {
    this.client = createOpenAiClient({
      apiKey: cfg.apiKey,
      baseURL: cfg.baseURL,
      timeoutMs: cfg.timeoutMs,
      maxRetries: 2,
    });
    this.name = `openai:${cfg.model}`;
  }

  async check(): Promise<void> {
    // Nothing to verify offline; a wrong URL or key shows up on the first chunk with the server's message.
  }

  async transcribe(wavPath: string, opts: TranscribeOptions): Promise<EngineResult> {
    const hint = [`Recording type: ${opts.fileType}.`, opts.prompt ?? ""].join(" ").trim();
    const language = opts.language === "auto" ? undefined : opts.language.split("-")[0];
    const request = async (format: "verbose_json" | "json") =>
      this.client.audio.transcriptions.create(
        {
          file: await toFile(createReadStream(wavPath), "chunk.wav", { type: "audio/wav" }),
          model: this.cfg.model,
          language,
          prompt: hint.slice(0, 800),
          response_format: format,
          ...(format === "verbose_json" ? { timestamp_granularities: ["word" as const, "segment" as const] } : {}),
        },
        { signal: opts.signal },
      );
    try {
      if (!this.plainOnly) {
        try {
          return toResult(await request("verbose_json"), language);
        } catch (err) {
          // Servers without verbose_json (some gpt-4o models, minimal stand-ins) refuse it with a 400.
          if ((err as { status?: number }).status !== 400) throw err;
          this.plainOnly = true;
        }
      }
      return toResult(await request("json"), language);
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (!isRetryableStatus(status)) {
        throw new AppError(
          "TRANSCRIPTION_FAILED",
          `The speech server refused the audio (${status}): ${(err as Error).message}`,
          { retryable: false, cause: err },
        );
      }
      throw err;
    }
  }
}

interface VerboseAnswer {
  text?: string;
  language?: string;
  duration?: number;
  segments?: Array<{ start: number; end: number; text: string }>;
  /** With timestamp_granularities ["word", …]: every word of the answer, in order. */
  words?: Array<{ word: string; start: number; end: number }>;
}

/** A verbose_json answer's segments, or the plain text as one segment over the chunk. Pure. */
export function toResult(res: unknown, asked: string | undefined): EngineResult {
  const r = (res ?? {}) as VerboseAnswer;
  const language = normalizeWhisperLanguage(r.language) ?? asked ?? null;
  if (Array.isArray(r.segments) && r.segments.length > 0) {
    const segments: EngineSegment[] = r.segments
      .map((s) => ({ start: Number(s.start) || 0, end: Number(s.end) || 0, text: String(s.text ?? "").trim() }))
      .filter((s) => s.text);
    return { segments: withServerWords(segments, r.words), language };
  }
  const text = (r.text ?? "").trim();
  return { segments: text ? [{ start: 0, end: r.duration ?? 0, text }] : [], language };
}

/**
 * The server's word times given to the segments they fall in (by their middle). A segment whose
 * words do not spell its text keeps none (the worker then spreads its time over its words).
 */
function withServerWords(segments: EngineSegment[], words: VerboseAnswer["words"]): EngineSegment[] {
  if (!Array.isArray(words) || words.length === 0) return segments;
  const timed = words
    .map((w) => ({ start: Number(w.start) || 0, end: Number(w.end) || 0, text: String(w.word ?? "").trim() }))
    .filter((w) => w.text && w.end >= w.start);
  const squash = (s: string) => s.replace(/[\s\p{P}]+/gu, "").toLowerCase();
  return segments.map((s, i) => {
    const last = i === segments.length - 1;
    const own = timed.filter((w) => {
      const mid = (w.start + w.end) / 2;
      return mid >= s.start && (mid < s.end || (last && mid <= s.end));
    });
    return own.length && squash(own.map((w) => w.text).join("")) === squash(s.text) ? { ...s, words: own } : s;
  });
}

/** OpenAI answers `language` as an English name ("japanese"); whisper.cpp's server as a code. */
function normalizeWhisperLanguage(value: string | undefined): string | null {
  if (!value) return null;
  const v = value.toLowerCase();
  const byName = WHISPER_LANGUAGES.find(([, name]) => name.toLowerCase() === v);
  return byName ? byName[0] : (parseAudioLanguage(v) ?? null);
}
