// ONNX model files in sherpa-onnx's exact formats with small random weights, written by
// scripts/make-test-onnx-models.py (Debian's /usr/bin/python3 with python3-onnx and python3-numpy)
// and cached under the OS temp directory, keyed by the script's hash.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("../../scripts/make-test-onnx-models.py", import.meta.url));
const PYTHON = process.env.KIKITORI_ONNX_PYTHON ?? "/usr/bin/python3";

/** The files the script writes, by role. */
export const TEST_ONNX_FILES = {
  segmentation: "pyannote-segmentation.onnx",
  segmentationNoWindowSize: "pyannote-segmentation-no-window-size.onnx",
  segmentationRank2Input: "pyannote-segmentation-rank2-input.onnx",
  embedding: "nemo-speaker-embedding.onnx",
  embeddingNoOutputDim: "nemo-speaker-embedding-no-output-dim.onnx",
  embeddingNotNemo: "nemo-speaker-embedding-not-nemo.onnx",
  /** A NeMo transducer's directory: encoder.onnx, decoder.onnx, joiner.onnx, tokens.txt. */
  nemoTransducer: "nemo-transducer",
  /** A SenseVoice CTC model's directory: model.onnx, tokens.txt. */
  senseVoice: "sense-voice",
  /** The same with the metadata key lang_ja missing. */
  senseVoiceNoLangJa: "sense-voice-no-lang-ja",
} as const;

export type TestOnnxModels = { [K in keyof typeof TEST_ONNX_FILES]: string };

/** The paths of the generated models (written once per version of the script, then reused). */
export function testOnnxModels(): TestOnnxModels {
  const hash = createHash("sha256").update(readFileSync(SCRIPT)).digest("hex").slice(0, 16);
  const dir = path.join(os.tmpdir(), `kikitori-test-onnx-${hash}`);
  if (!existsSync(path.join(dir, ".complete"))) {
    const tmp = `${dir}.${process.pid}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    execFileSync(PYTHON, [SCRIPT, tmp], { stdio: ["ignore", "ignore", "pipe"], timeout: 60_000 });
    execFileSync("touch", [path.join(tmp, ".complete")]);
    try {
      renameSync(tmp, dir);
    } catch {
      // Another test process wrote it first: use theirs.
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const entries = Object.entries(TEST_ONNX_FILES).map(([k, f]) => [k, path.join(dir, f)]);
  return Object.fromEntries(entries) as TestOnnxModels;
}

/** The generated recognizers as the worker's sherpa offline engines take them (SherpaOfflineModel). */
export function sherpaTestModels(models = testOnnxModels()) {
  const t = (n: string) => path.join(models.nemoTransducer, n);
  return {
    parakeet: {
      family: "parakeet" as const,
      name: "test-transducer",
      files: {
        encoder: t("encoder.onnx"),
        decoder: t("decoder.onnx"),
        joiner: t("joiner.onnx"),
        tokens: t("tokens.txt"),
      },
      languages: ["en", "de"],
    },
    sensevoice: {
      family: "sensevoice" as const,
      name: "test-ctc",
      files: { model: path.join(models.senseVoice, "model.onnx"), tokens: path.join(models.senseVoice, "tokens.txt") },
      languages: ["zh", "en", "ja", "ko", "yue"],
    },
  };
}

/**
 * The generated recognizers under the file names of sherpa-onnx's release archives, in `dir`/parakeet
 * and `dir`/sensevoice (what PARAKEET_MODEL_DIR / SENSEVOICE_MODEL_DIR point at). `corruptEncoder`:
 * every Parakeet file is there (the model is "present"), but its encoder is not an ONNX graph.
 */
export function installSherpaModelDirs(
  dir: string,
  opts: { corruptEncoder?: boolean } = {},
  models = testOnnxModels(),
): { parakeet: string; sensevoice: string } {
  const install = (from: string, to: string, names: Record<string, string>) => {
    mkdirSync(to, { recursive: true });
    for (const [src, dest] of Object.entries(names)) copyFileSync(path.join(from, src), path.join(to, dest));
  };
  const parakeet = path.join(dir, "parakeet");
  const sensevoice = path.join(dir, "sensevoice");
  install(models.nemoTransducer, parakeet, {
    ...(opts.corruptEncoder ? {} : { "encoder.onnx": "encoder.int8.onnx" }),
    "decoder.onnx": "decoder.int8.onnx",
    "joiner.onnx": "joiner.int8.onnx",
    "tokens.txt": "tokens.txt",
  });
  if (opts.corruptEncoder) writeFileSync(path.join(parakeet, "encoder.int8.onnx"), Buffer.alloc(4096, 7));
  install(models.senseVoice, sensevoice, { "model.onnx": "model.int8.onnx", "tokens.txt": "tokens.txt" });
  return { parakeet, sensevoice };
}
