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

it("asks for verbose_json and returns the server's timed segments", async () => {
  const standin = await startOpenAiStandin(() => ({
    json: {
      text: "Hello. From the speech server.",
      language: "japanese",
      duration: 1,
      segments: [
        { id: 0, start: 0, end: 0.4, text: " Hello." },
        { id: 1, start: 0.4, end: 1, text: " From the speech server." },
      ],
    },
  }));
  try {
    const engine = new OpenAiTranscriptionEngine({
      baseURL: standin.url,
      apiKey: "k",
      model: "whisper-1",
      timeoutMs: 5000,
    });
    const result = await engine.transcribe(wav, { language: "ja", fileType: "meeting" });
    expect(result).toEqual({
      language: "ja",
      segments: [
        { start: 0, end: 0.4, text: "Hello." },
        { start: 0.4, end: 1, text: "From the speech server." },
      ],
    });
    expect(multipartField(standin.requests[0].body, "response_format")).toBe("verbose_json");
    // "auto" sends no language: the server detects it.
    await engine.transcribe(wav, { language: "auto", fileType: "meeting" });
    expect(multipartField(standin.requests[1].body, "language")).toBeNull();
  } finally {
    await standin.close();
  }
});

it("falls back to plain text once for a server without verbose_json", async () => {
  const standin = await startOpenAiStandin((req) =>
    multipartField(req.body, "response_format") === "verbose_json"
      ? { status: 400, json: { error: { message: "unsupported response_format", type: "invalid_request_error" } } }
      : { json: { text: " Hello from the speech server. " } },
  );
  try {
    const engine = new OpenAiTranscriptionEngine({
      baseURL: standin.url,
      apiKey: "k",
      model: "whisper-large-v3",
      timeoutMs: 5000,
    });
    const result = await engine.transcribe(wav, {
      language: "ja",
      fileType: "phonecall",
      prompt: "Speakers: Anna, Ben.",
    });
    expect(result).toEqual({ language: "ja", segments: [{ start: 0, end: 0, text: "Hello from the speech server." }] });
    const req = standin.requests[1];
    expect(req.path).toBe("/v1/audio/transcriptions");
    expect(req.headers.authorization).toBe("Bearer k");
    expect(multipartField(req.body, "model")).toBe("whisper-large-v3");
    expect(multipartField(req.body, "language")).toBe("ja");
    expect(multipartField(req.body, "prompt")).toContain("phonecall");
    expect(multipartField(req.body, "prompt")).toContain("Anna, Ben");
    expect(req.body.includes(Buffer.from("RIFF"))).toBe(true);
    // The next chunk goes straight to plain text.
    await engine.transcribe(wav, { language: "ja", fileType: "phonecall" });
    expect(standin.requests.map((r) => multipartField(r.body, "response_format"))).toEqual([
      "verbose_json",
      "json",
      "json",
    ]);
  } finally {
    await standin.close();
  }
});

it("turns a refusal (4xx) into a non-retryable TRANSCRIPTION_FAILED", async () => {
  const standin = await startOpenAiStandin(() => ({
    status: 415,
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
