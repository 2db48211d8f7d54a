import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ffmpegPath } from "@kikitori/shared/server";
import { multipartField, startOpenAiStandin } from "../../../tests/support/openai-standin.ts";
import { OpenAiTranscriptionEngine } from "../src/engines/openai.ts";

const wav = path.join(mkdtempSync(path.join(os.tmpdir(), "oa-")), "tone.wav");
beforeAll(() => {
  execFileSync(ffmpegPath(), [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:duration=1",
    "-ar",
    "16000",
    "-ac",
    "1",
    wav,
  ]);
});

it("sends the chunk with model, language and hints, and returns the text", async () => {
  const standin = await startOpenAiStandin(() => ({ json: { text: " Hello from the speech server. " } }));
  try {
    const engine = new OpenAiTranscriptionEngine({
      baseURL: standin.url,
      apiKey: "k",
      model: "whisper-large-v3",
      timeoutMs: 5000,
    });
    const text = await engine.transcribe(wav, {
      language: "ja",
      fileType: "phonecall",
      prompt: "Speakers: Anna, Ben.",
    });
    expect(text).toBe("Hello from the speech server.");
    const [req] = standin.requests;
    expect(req.path).toBe("/v1/audio/transcriptions");
    expect(req.headers.authorization).toBe("Bearer k");
    expect(multipartField(req.body, "model")).toBe("whisper-large-v3");
    expect(multipartField(req.body, "language")).toBe("ja");
    expect(multipartField(req.body, "prompt")).toContain("phonecall");
    expect(multipartField(req.body, "prompt")).toContain("Anna, Ben");
    expect(req.body.includes(Buffer.from("RIFF"))).toBe(true);
  } finally {
    await standin.close();
  }
});

it("turns a refusal (4xx) into a non-retryable TRANSCRIPTION_FAILED", async () => {
  const standin = await startOpenAiStandin(() => ({
    status: 400,
    json: { error: { message: "bad audio", type: "invalid_request_error" } },
  }));
  try {
    const engine = new OpenAiTranscriptionEngine({
      baseURL: standin.url,
      apiKey: "k",
      model: "whisper-1",
      timeoutMs: 5000,
    });
    await expect(engine.transcribe(wav, { language: "en", fileType: "meeting" })).rejects.toMatchObject({
      code: "TRANSCRIPTION_FAILED",
      retryable: false,
    });
    expect(standin.requests).toHaveLength(1);
  } finally {
    await standin.close();
  }
});
