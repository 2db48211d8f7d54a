import path from "node:path";

/**
 * The whisper.cpp ggml models the embedded engine can use, as one table.
 *
 * Sources: names from whisper.cpp's `models/download-ggml-model.sh`, SHA-1s and disk sizes from its
 * `models/README.md` (copies in /work/shared/models/reference). A SHA-1 is `null` where that README
 * publishes none (most quantized files): such a model is only pulled with a checksum given explicitly.
 * `small.en-tdrz` is left out: it lives in another repository (akashmjn/tinydiarize-whisper.cpp).
 *
 * Sizes are the README's (MiB) where it has them, else the approximate size of the file on
 * Hugging Face. Memory is whisper.cpp's published figure for the unquantized models (tiny 0.27,
 * base 0.39, small 0.85, medium 2.1, large 3.9 GB); for quantized files and large-v3-turbo it is an
 * estimate (file size plus the family's working memory).
 *
 * Quality, lower is better, `null` where not published: word error rate (%) on LibriSpeech
 * test-clean measured with whisper.cpp, and character error rate (%) on the Japanese JSUT corpus.
 */
const TABLE = [
  // name, SHA-1, size MB, memory GB, LibriSpeech WER %, JSUT CER %
  ["tiny", "bd577a113a864445d4c299885e0cb97d4ba92b5f", 75, 0.27, 6.9, 36.5],
  ["tiny.en", "c78c86eb1a8faa21b369bcd33207cc90d64ae9df", 75, 0.27, null, null],
  ["tiny-q5_1", null, 31, 0.23, null, null],
  ["tiny.en-q5_1", null, 31, 0.23, null, null],
  ["tiny-q8_0", null, 42, 0.24, null, null],
  ["base", "465707469ff3a37a2b9b8d8f89f2f99de7299dac", 142, 0.39, 4.8, 24.9],
  ["base.en", "137c40403d78fd54d454da0f9bd998f78703390c", 142, 0.39, null, null],
  ["base-q5_1", null, 57, 0.31, null, null],
  ["base.en-q5_1", null, 57, 0.31, null, null],
  ["base-q8_0", null, 78, 0.33, null, null],
  ["small", "55356645c2b361a969dfd0ef2c5a50d530afd8d5", 466, 0.85, 3.4, 14.2],
  ["small.en", "db8a495a91d927739e50b3fc1cc4c6b8f6c2d022", 466, 0.85, null, null],
  ["small-q5_1", null, 181, 0.57, null, null],
  ["small.en-q5_1", null, 181, 0.57, null, null],
  ["small-q8_0", null, 252, 0.64, null, null],
  ["medium", "fd9727b6e1217c2f614f9b698455c4ffd82463b4", 1536, 2.1, 2.7, 10.0],
  ["medium.en", "8c30f0e44ce9560643ebd10bbe50cd20eafd3723", 1536, 2.1, null, null],
  ["medium-q5_0", null, 514, 1.05, null, null],
  ["medium.en-q5_0", null, 514, 1.05, null, null],
  ["medium-q8_0", null, 785, 1.3, null, null],
  ["large-v1", "b1caaf735c4cc1429223d5a74f0f4d0b9b59a299", 2970, 3.9, null, null],
  ["large-v2", "0f4c8e34f21cf1a914c59d8b3ce882345ad349d6", 2970, 3.9, null, null],
  ["large-v2-q5_0", "00e39f2196344e901b3a2bd5814807a769bd1630", 1126, 2.1, null, null],
  ["large-v2-q8_0", null, 1580, 2.7, null, null],
  ["large-v3", "ad82bf6a9043ceed055076d0fd39f5f186ff8062", 2970, 3.9, 2.7, 7.1],
  ["large-v3-q5_0", "e6e2ed78495d403bef4b7cff42ef4aaadcfea8de", 1126, 2.1, null, null],
  ["large-v3-turbo", "4af2b29d7ec73d781377bfd1758ca957a807e941", 1536, 2.4, 1.9, null],
  ["large-v3-turbo-q5_0", "e050f7970618a659205450ad97eb95a18d69c9ee", 547, 1.4, null, null],
  ["large-v3-turbo-q8_0", null, 834, 1.7, null, null],
] as const satisfies readonly (readonly [string, string | null, number, number, number | null, number | null])[];

type Names<T extends readonly (readonly [string, ...unknown[]])[]> = { readonly [K in keyof T]: T[K][0] };

/** Every model name, in catalogue order (a tuple: `z.enum(WHISPER_MODEL_NAMES)` works). */
export const WHISPER_MODEL_NAMES = TABLE.map((row) => row[0]) as unknown as Names<typeof TABLE>;
export type WhisperModelName = (typeof WHISPER_MODEL_NAMES)[number];

/** The model used when WHISPER_MODEL is not set. */
export const DEFAULT_WHISPER_MODEL: WhisperModelName = "base";

/** Where the files are published; WHISPER_MODEL_BASE_URL points elsewhere (a mirror, a test server). */
export const WHISPER_MODEL_SOURCE = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main";

export interface WhisperModelEntry {
  name: WhisperModelName;
  /** `ggml-<name>.bin` */
  file: string;
  /** Download URL at WHISPER_MODEL_SOURCE. */
  url: string;
  /** SHA-1 of the file as published by whisper.cpp; null where none is published. */
  sha1: string | null;
  /** Approximate file size, MB. */
  sizeMB: number;
  /** Approximate memory while transcribing, GB. */
  memoryGB: number;
  /** False for the English-only `.en` models. */
  multilingual: boolean;
  /** Quantization of the weights (`q5_0`, `q5_1`, `q8_0`), null for the original 16-bit files. */
  quantization: "q5_0" | "q5_1" | "q8_0" | null;
  /** LibriSpeech test-clean word error rate (%) with whisper.cpp, where published. */
  librispeechWer: number | null;
  /** Japanese JSUT character error rate (%), where published. */
  jsutCer: number | null;
}

export const WHISPER_MODELS: readonly WhisperModelEntry[] = TABLE.map(([name, sha1, sizeMB, memoryGB, wer, cer]) => ({
  name,
  file: `ggml-${name}.bin`,
  url: `${WHISPER_MODEL_SOURCE}/ggml-${name}.bin`,
  sha1,
  sizeMB,
  memoryGB,
  multilingual: !name.includes(".en"),
  quantization: (/-(q\d_\d)$/.exec(name)?.[1] ?? null) as WhisperModelEntry["quantization"],
  librispeechWer: wer,
  jsutCer: cer,
}));

const BY_NAME = new Map<string, WhisperModelEntry>(WHISPER_MODELS.map((m) => [m.name, m]));

export function isWhisperModelName(name: string): name is WhisperModelName {
  return BY_NAME.has(name);
}

/** The catalogue entry of `name`; throws naming the known models when there is none. */
export function modelEntry(name: string): WhisperModelEntry {
  const entry = BY_NAME.get(name);
  if (!entry) throw new Error(`unknown Whisper model "${name}"; known: ${WHISPER_MODEL_NAMES.join(", ")}`);
  return entry;
}

/** Path of the model file of `name` in `modelsDir`. */
export function modelFile(modelsDir: string, name: WhisperModelName): string {
  return path.join(modelsDir, modelEntry(name).file);
}

/** Download URL of `name`, at `baseUrl` (a mirror) or the published source. */
export function modelUrl(name: WhisperModelName, baseUrl?: string): string {
  const entry = modelEntry(name);
  return baseUrl ? `${baseUrl.replace(/\/+$/, "")}/${entry.file}` : entry.url;
}

/**
 * The sherpa-onnx offline recognizers (release archives under `asr-models`), unpacked into
 * MODELS_DIR/<dir>. No SHA-256 of these archives is published (neither the release page nor the
 * sherpa-onnx docs give one): `archiveSha256` is null and `npm run models -- pull NAME --sha256=<hex>`
 * pins the one the operator checked. After unpacking, every file of `files` must be there.
 *
 * Sizes: the unpacked files as listed on the Hugging Face copies of the same exports
 * (csukuangfj/sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8: encoder 652 MB, decoder 11.8 MB,
 * joiner 6.4 MB; the v2 docs' `ls -lh`: 622 MB + 6.9 MB + 1.7 MB; sense-voice 2024-07-17:
 * model.int8.onnx 239 MB). Memory is an estimate (int8 weights plus the encoder's working memory).
 *
 * Quality, published, lower is better: Parakeet TDT 0.6B v3: Open ASR leaderboard English mean WER
 * 6.26 %, FLEURS 25 languages mean WER 11.6 % (NVIDIA's model card); v2: LibriSpeech test-clean WER
 * 1.69 % (model card). SenseVoice-small: no JSUT CER was found published; FunAudioLLM reports it
 * ahead of Whisper on Chinese and Cantonese and about 15 times faster (non-autoregressive CTC, one
 * pass per window).
 */
export const SHERPA_ASR_RELEASES = "https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models";

const PARAKEET_FILES = {
  encoder: "encoder.int8.onnx",
  decoder: "decoder.int8.onnx",
  joiner: "joiner.int8.onnx",
  tokens: "tokens.txt",
} as const;

export const SPEECH_MODELS = [
  {
    name: "parakeet-tdt-0.6b-v3-int8",
    family: "parakeet",
    dir: "sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8",
    archiveSha256: null,
    files: PARAKEET_FILES,
    sizeMB: 670,
    memoryGB: 1.2,
    languages: "european25",
    quality: "Open ASR English mean WER 6.26 %, FLEURS 25 languages 11.6 % (NVIDIA model card)",
  },
  {
    name: "parakeet-tdt-0.6b-v2-int8",
    family: "parakeet",
    dir: "sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8",
    archiveSha256: null,
    files: PARAKEET_FILES,
    sizeMB: 631,
    memoryGB: 1.2,
    languages: "en",
    quality: "LibriSpeech test-clean WER 1.69 % (NVIDIA model card)",
  },
  {
    name: "sense-voice-small-int8",
    family: "sensevoice",
    dir: "sherpa-onnx-sense-voice-zh-en-ja-ko-yue-int8-2024-07-17",
    archiveSha256: null,
    files: { model: "model.int8.onnx", tokens: "tokens.txt" },
    sizeMB: 240,
    memoryGB: 0.5,
    languages: "cjk",
    quality: "no JSUT CER published; ahead of Whisper on zh and yue (FunAudioLLM SenseVoice)",
  },
] as const;

export type SpeechModelEntry = (typeof SPEECH_MODELS)[number];
export type SpeechModelName = SpeechModelEntry["name"];
export const SPEECH_MODEL_NAMES = SPEECH_MODELS.map((m) => m.name) as unknown as readonly [
  SpeechModelName,
  ...SpeechModelName[],
];

export function isSpeechModelName(name: string): name is SpeechModelName {
  return SPEECH_MODELS.some((m) => m.name === name);
}

export function speechModelEntry(name: SpeechModelName): SpeechModelEntry {
  const entry = SPEECH_MODELS.find((m) => m.name === name);
  if (!entry) throw new Error(`unknown speech model "${name}"; known: ${SPEECH_MODEL_NAMES.join(", ")}`);
  return entry;
}

/** The release archive of `name`, at `baseUrl` (a mirror) or the published source. */
export function speechModelUrl(name: SpeechModelName, baseUrl?: string): string {
  const file = `${speechModelEntry(name).dir}.tar.bz2`;
  return `${baseUrl ? baseUrl.replace(/\/+$/, "") : SHERPA_ASR_RELEASES}/${file}`;
}

/** The paths of the unpacked files of `name`, in `dir` (default MODELS_DIR/<the archive's directory>). */
export function speechModelFiles(modelsDir: string, name: SpeechModelName, dir?: string): Record<string, string> {
  const entry = speechModelEntry(name);
  const base = dir ?? path.join(modelsDir, entry.dir);
  return Object.fromEntries(Object.entries(entry.files).map(([role, f]) => [role, path.join(base, f)]));
}
