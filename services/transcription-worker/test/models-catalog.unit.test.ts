import path from "node:path";
import { z } from "zod";
import {
  DEFAULT_WHISPER_MODEL,
  modelEntry,
  modelFile,
  modelUrl,
  WHISPER_MODEL_NAMES,
  WHISPER_MODELS,
} from "../src/models/catalog.ts";

// The SHA-1s whisper.cpp publishes in its models/README.md.
const ISSUE_SHA1 = {
  tiny: "bd577a113a864445d4c299885e0cb97d4ba92b5f",
  base: "465707469ff3a37a2b9b8d8f89f2f99de7299dac",
  small: "55356645c2b361a969dfd0ef2c5a50d530afd8d5",
  medium: "fd9727b6e1217c2f614f9b698455c4ffd82463b4",
  "large-v3": "ad82bf6a9043ceed055076d0fd39f5f186ff8062",
  "large-v3-turbo": "4af2b29d7ec73d781377bfd1758ca957a807e941",
  "large-v3-turbo-q5_0": "e050f7970618a659205450ad97eb95a18d69c9ee",
} as const;

it("carries the SHA-1s of the issue", () => {
  for (const [name, sha1] of Object.entries(ISSUE_SHA1)) expect(modelEntry(name).sha1).toBe(sha1);
});

it("has unique names, files and SHA-1s, and well-formed entries", () => {
  expect(new Set(WHISPER_MODEL_NAMES).size).toBe(WHISPER_MODEL_NAMES.length);
  expect(WHISPER_MODELS.map((m) => m.name)).toEqual([...WHISPER_MODEL_NAMES]);
  expect(new Set(WHISPER_MODELS.map((m) => m.file)).size).toBe(WHISPER_MODELS.length);
  const sha1s = WHISPER_MODELS.flatMap((m) => (m.sha1 ? [m.sha1] : []));
  expect(new Set(sha1s).size).toBe(sha1s.length);
  for (const m of WHISPER_MODELS) {
    expect(m.file).toBe(`ggml-${m.name}.bin`);
    expect(m.url).toBe(`https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-${m.name}.bin`);
    if (m.sha1 !== null) expect(m.sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(m.sizeMB).toBeGreaterThan(0);
    expect(m.memoryGB).toBeGreaterThan(0);
    expect(m.multilingual).toBe(!m.name.includes(".en"));
  }
});

it("lists the models the issue asks for, with their published quality", () => {
  const required = [
    "tiny",
    "tiny.en",
    "base",
    "base.en",
    "small",
    "small.en",
    "medium",
    "medium.en",
    "large-v3",
    "large-v3-turbo",
    "large-v3-turbo-q5_0",
    "tiny-q5_1",
    "tiny-q8_0",
    "base-q5_1",
    "base-q8_0",
    "small-q5_1",
    "small-q8_0",
    "medium-q5_0",
    "large-v3-q5_0",
    "large-v3-turbo-q8_0",
  ];
  expect(WHISPER_MODEL_NAMES).toEqual(expect.arrayContaining(required));
  const quality = (n: string) => [modelEntry(n).librispeechWer, modelEntry(n).jsutCer, modelEntry(n).memoryGB];
  expect(quality("tiny")).toEqual([6.9, 36.5, 0.27]);
  expect(quality("base")).toEqual([4.8, 24.9, 0.39]);
  expect(quality("small")).toEqual([3.4, 14.2, 0.85]);
  expect(quality("medium")).toEqual([2.7, 10.0, 2.1]);
  expect(quality("large-v3")).toEqual([2.7, 7.1, 3.9]);
  expect(modelEntry("large-v3-turbo").librispeechWer).toBe(1.9);
  // Quantized files need less memory than the model they come from.
  for (const m of WHISPER_MODELS.filter((e) => e.quantization)) {
    const original = modelEntry(m.name.replace(/-q\d_\d$/, ""));
    expect(m.memoryGB).toBeLessThan(original.memoryGB);
    expect(m.sizeMB).toBeLessThan(original.sizeMB);
  }
  expect(modelEntry("medium-q5_0").quantization).toBe("q5_0");
  expect(modelEntry("tiny.en-q5_1")).toMatchObject({ quantization: "q5_1", multilingual: false });
});

it("works as a zod enum, with a default that is in it", () => {
  const schema = z.enum(WHISPER_MODEL_NAMES).default(DEFAULT_WHISPER_MODEL);
  expect(schema.parse(undefined)).toBe("base");
  expect(schema.parse("large-v3-turbo")).toBe("large-v3-turbo");
  expect(schema.safeParse("huge").success).toBe(false);
});

it("names paths and URLs, and refuses unknown models", () => {
  expect(modelFile("/m", "small.en")).toBe(path.join("/m", "ggml-small.en.bin"));
  expect(modelUrl("base", "http://mirror.local/whisper/")).toBe("http://mirror.local/whisper/ggml-base.bin");
  expect(modelUrl("base")).toBe("https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-base.bin");
  expect(() => modelEntry("huge")).toThrow(/unknown Whisper model "huge".*tiny/);
});
