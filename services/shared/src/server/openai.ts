/**
 * The one way the services talk to an OpenAI-compatible server (OpenAI, vLLM, Ollama, LM Studio,
 * speaches, whisper.cpp's server...): the client every `openai` engine is built with (speech in the
 * transcription worker; correction, summary and titles in the text worker), and which of its
 * failures may get better by trying again. Imported as `@kikitori/shared/openai`, so only the
 * services that use it load the SDK.
 */
import { OpenAI } from "openai";

export interface OpenAiClientOptions {
  /** Local servers take any key; the SDK wants one, so an empty key is sent as "not-needed". */
  apiKey?: string;
  /** OPENAI_BASE_URL; empty means OpenAI itself. */
  baseURL?: string;
  /** Per request, in ms. */
  timeoutMs: number;
  /** Retries of the SDK itself for connection errors, 408/409/429 and 5xx. */
  maxRetries: number;
}

export function createOpenAiClient(opts: OpenAiClientOptions): OpenAI {
  return new OpenAI({
    apiKey: opts.apiKey || "not-needed",
    baseURL: opts.baseURL || undefined,
    timeout: opts.timeoutMs,
    maxRetries: opts.maxRetries,
  });
}

/**
 * Whether a failed request may succeed when tried again: a client error (bad request, credentials,
 * unknown model: 4xx) fails the same way again, except a timeout or conflict (408, 409) and a rate
 * limit (429); no answer at all (network, timeout) and server faults (5xx) may pass next time.
 */
export function isRetryableStatus(status: number | undefined): boolean {
  if (status === undefined || status < 400 || status >= 500) return true;
  return status === 408 || status === 409 || status === 429;
}
