// Synthetic whisper.cpp model files: the real ggml file layout and the real tensor names/shapes of the
// published Whisper models, with random weights. Real weights cannot be downloaded here, and the
// cost of whisper.cpp's encoder does not depend on weight values, so these files let `bench:whisper`
// measure the compute cost per model on this CPU.
//
// Layout (whisper.cpp models/convert-pt-to-ggml.py, read back by `whisper_model_load`), little endian:
//   int32 magic 0x67676d6c, hparams (n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer,
//   n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, ftype)
//   int32 n_mel, int32 n_fft, float32[n_mel*n_fft] mel filters
//   int32 n_tokens, then per token: int32 length, bytes
//   per tensor: int32 n_dims, int32 name length, int32 ggml type, int32 dims[n_dims] (ggml order, i.e.
//   the numpy shape reversed), name bytes, data
// The header, mel filters (80 bins) and vocabulary come from whisper.cpp's own test model
// (for-tests-ggml-tiny.bin: exactly that prefix, without tensors); the 128 mel filters of large-v3 are
// computed like librosa's `filters.mel(sr=16000, n_fft=400, n_mels=128)` (what whisper's
// mel_filters.npz holds), checked against the 80-bin filters of the test model.
//
// Quantized files follow whisper.cpp's examples/quantize: header ftype = 2000 + ftype (GGML_QNT_VERSION 2
// * GGML_QNT_VERSION_FACTOR 1000 + GGML_FTYPE_MOSTLY_Q8_0 7 / Q5_0 8 / Q5_1 9); every 2-D tensor is
// quantized except encoder.conv1.bias, encoder.conv2.bias and the two positional embeddings; 1-D
// tensors stay f32 and the 3-D conv kernels stay f16.
//
// Values: weights uniform in ±0.02 (f16, or quantized blocks with valid f16 scales), biases ±0.02,
// layer-norm weights 1 and biases 0. Two exceptions make the random decoder behave like a real model on
// clear speech, so that whisper_full decodes each window once, as it would in production:
// - decoder.positional_embedding is ±1: it dominates the decoder's residual stream, so the greedy token
//   changes from one position to the next. With everything at ±0.02 the input-independent parts
//   (biases, the cross-attention average over 1500 frames) win, greedy decoding repeats one token, and
//   whisper.cpp counts the window as failed (entropy of the last 32 tokens < 2.4);
// - decoder.ln.weight is large, so the logits are sharp (the chosen token has p ≈ 1). With near-uniform
//   logits the average log-probability is ≈ -10.9 < logprob_thold (-1).
// A failed window is decoded again at temperatures 0.2, 0.4, … 1.0 with 5 decoders each, which the
// binding cannot switch off (temperature_inc and the thresholds are not exposed): with all weights at
// ±0.02 a 100-token window took 606 decoder calls instead of 101. The compute per call does not depend
// on these values.
// To keep generation fast, data are cut from pools of random values whose length is a prime number of
// elements (or blocks), so consecutive rows of a matrix differ.
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";

/** Bump when the generated content changes (it is part of the cache file names). */
export const SYNTH_VERSION = 1;

export const REFERENCE_TEST_MODEL = "/work/shared/models/for-tests-ggml-tiny.bin";

export type WhisperShape = "tiny" | "base" | "small" | "medium" | "large-v3" | "large-v3-turbo";
export type WhisperQuant = "f16" | "q5_0" | "q5_1" | "q8_0";

export const WHISPER_SHAPES: readonly WhisperShape[] = [
  "tiny",
  "base",
  "small",
  "medium",
  "large-v3",
  "large-v3-turbo",
];
export const WHISPER_QUANTS: readonly WhisperQuant[] = ["f16", "q5_0", "q5_1", "q8_0"];

export interface WhisperHparams {
  n_vocab: number;
  n_audio_ctx: number;
  n_audio_state: number;
  n_audio_head: number;
  n_audio_layer: number;
  n_text_ctx: number;
  n_text_state: number;
  n_text_head: number;
  n_text_layer: number;
  n_mels: number;
}

function hparams(state: number, heads: number, audioLayers: number, textLayers: number, large = false): WhisperHparams {
  return {
    n_vocab: large ? 51_866 : 51_865,
    n_audio_ctx: 1500,
    n_audio_state: state,
    n_audio_head: heads,
    n_audio_layer: audioLayers,
    n_text_ctx: 448,
    n_text_state: state,
    n_text_head: heads,
    n_text_layer: textLayers,
    n_mels: large ? 128 : 80,
  };
}

/** Published shapes (openai/whisper `ModelDimensions`). */
export const SHAPE_HPARAMS: Record<WhisperShape, WhisperHparams> = {
  tiny: hparams(384, 6, 4, 4),
  base: hparams(512, 8, 6, 6),
  small: hparams(768, 12, 12, 12),
  medium: hparams(1024, 16, 24, 24),
  "large-v3": hparams(1280, 20, 32, 32, true),
  "large-v3-turbo": hparams(1280, 20, 32, 4, true),
};

/** ggml_type ids (ggml.h) and their storage. */
const GGML_TYPE = { f32: 0, f16: 1, q5_0: 6, q5_1: 7, q8_0: 8 } as const;
type StorageType = keyof typeof GGML_TYPE;
const BLOCK: Record<StorageType, { values: number; bytes: number }> = {
  f32: { values: 1, bytes: 4 },
  f16: { values: 1, bytes: 2 },
  q8_0: { values: 32, bytes: 34 }, // f16 d, int8 qs[32]
  q5_0: { values: 32, bytes: 22 }, // f16 d, u8 qh[4], u8 qs[16]
  q5_1: { values: 32, bytes: 24 }, // f16 d, f16 m, u8 qh[4], u8 qs[16]
};
/** ggml_ftype of the file header (ggml.h `enum ggml_ftype`). */
const HEADER_FTYPE: Record<WhisperQuant, number> = { f16: 1, q8_0: 2007, q5_0: 2008, q5_1: 2009 };

type Fill = "random" | "ones" | "zeros" | "head" | "positions";

export interface TensorSpec {
  name: string;
  /** ggml order (ne0 first), as written in the file. */
  dims: number[];
  type: StorageType;
  fill: Fill;
}

/** Tensors in the order of the PyTorch state dict (the order convert-pt-to-ggml.py writes them). */
export function whisperTensors(h: WhisperHparams, quant: WhisperQuant): TensorSpec[] {
  const w: StorageType = quant; // the matrices
  const out: TensorSpec[] = [];
  const t = (name: string, dims: number[], type: StorageType, fill: Fill = "random") =>
    out.push({ name, dims, type, fill });
  const norm = (prefix: string, n: number) => {
    t(`${prefix}.weight`, [n], "f32", "ones");
    t(`${prefix}.bias`, [n], "f32", "zeros");
  };
  const attention = (prefix: string, n: number) => {
    t(`${prefix}.query.weight`, [n, n], w);
    t(`${prefix}.query.bias`, [n], "f32");
    t(`${prefix}.key.weight`, [n, n], w);
    t(`${prefix}.value.weight`, [n, n], w);
    t(`${prefix}.value.bias`, [n], "f32");
    t(`${prefix}.out.weight`, [n, n], w);
    t(`${prefix}.out.bias`, [n], "f32");
  };
  const mlp = (prefix: string, n: number) => {
    t(`${prefix}.mlp.0.weight`, [n, 4 * n], w);
    t(`${prefix}.mlp.0.bias`, [4 * n], "f32");
    t(`${prefix}.mlp.2.weight`, [4 * n, n], w);
    t(`${prefix}.mlp.2.bias`, [n], "f32");
  };

  const a = h.n_audio_state;
  t("encoder.positional_embedding", [a, h.n_audio_ctx], "f32");
  t("encoder.conv1.weight", [3, h.n_mels, a], "f16");
  t("encoder.conv1.bias", [1, a], "f32");
  t("encoder.conv2.weight", [3, a, a], "f16");
  t("encoder.conv2.bias", [1, a], "f32");
  for (let i = 0; i < h.n_audio_layer; i++) {
    const p = `encoder.blocks.${i}`;
    attention(`${p}.attn`, a);
    norm(`${p}.attn_ln`, a);
    mlp(p, a);
    norm(`${p}.mlp_ln`, a);
  }
  norm("encoder.ln_post", a);

  const s = h.n_text_state;
  t("decoder.positional_embedding", [s, h.n_text_ctx], "f32", "positions");
  t("decoder.token_embedding.weight", [s, h.n_vocab], w);
  for (let i = 0; i < h.n_text_layer; i++) {
    const p = `decoder.blocks.${i}`;
    attention(`${p}.attn`, s);
    norm(`${p}.attn_ln`, s);
    attention(`${p}.cross_attn`, s);
    norm(`${p}.cross_attn_ln`, s);
    mlp(p, s);
    norm(`${p}.mlp_ln`, s);
  }
  t("decoder.ln.weight", [s], "f32", "head");
  t("decoder.ln.bias", [s], "f32", "zeros");
  return out;
}

export function tensorDataBytes(spec: Pick<TensorSpec, "dims" | "type">): number {
  const n = spec.dims.reduce((x, y) => x * y, 1);
  const b = BLOCK[spec.type];
  if (n % b.values !== 0) throw new Error(`${spec.dims.join("x")} is not a multiple of the ${spec.type} block`);
  return (n / b.values) * b.bytes;
}

function tensorHeader(spec: TensorSpec): Buffer {
  const name = Buffer.from(spec.name, "utf8");
  const buf = Buffer.alloc(12 + 4 * spec.dims.length + name.length);
  buf.writeInt32LE(spec.dims.length, 0);
  buf.writeInt32LE(name.length, 4);
  buf.writeInt32LE(GGML_TYPE[spec.type], 8);
  spec.dims.forEach((d, i) => {
    buf.writeInt32LE(d, 12 + 4 * i);
  });
  name.copy(buf, 12 + 4 * spec.dims.length);
  return buf;
}

// ---------------------------------------------------------------------------------------------------
// Reference assets: mel filters and vocabulary

export interface ReferenceAssets {
  /** The 48-byte header of the reference file. */
  header: Buffer;
  nMel: number;
  nFft: number;
  /** n_mel * n_fft float32, row-major. */
  melFilters: Float32Array;
  /** The raw vocabulary section (count + entries), copied as is. */
  vocab: Buffer;
  vocabCount: number;
  /** Bytes of header + mel filters + vocabulary (the reference test models hold nothing else). */
  prefixBytes: number;
}

const assetCache = new Map<string, ReferenceAssets>();

export async function readReferenceAssets(file = REFERENCE_TEST_MODEL): Promise<ReferenceAssets> {
  const cached = assetCache.get(file);
  if (cached) return cached;
  const b = await readFile(file);
  if (b.readUInt32LE(0) !== 0x67676d6c) throw new Error(`${file}: not a ggml whisper model (bad magic)`);
  let off = 48;
  const nMel = b.readInt32LE(off);
  const nFft = b.readInt32LE(off + 4);
  off += 8;
  const melFilters = new Float32Array(nMel * nFft);
  for (let i = 0; i < melFilters.length; i++) melFilters[i] = b.readFloatLE(off + 4 * i);
  off += 4 * nMel * nFft;
  const vocabStart = off;
  const vocabCount = b.readInt32LE(off);
  off += 4;
  for (let i = 0; i < vocabCount; i++) off += 4 + b.readInt32LE(off);
  const assets: ReferenceAssets = {
    header: b.subarray(0, 48),
    nMel,
    nFft,
    melFilters,
    vocab: b.subarray(vocabStart, off),
    vocabCount,
    prefixBytes: off,
  };
  assetCache.set(file, assets);
  return assets;
}

/** librosa.filters.mel(sr, n_fft, n_mels) with its defaults (Slaney mel scale and area normalisation). */
export function slaneyMelFilters(nMels: number, nFft = 400, sampleRate = 16_000): Float32Array {
  const fSp = 200 / 3;
  const minLogHz = 1000;
  const minLogMel = minLogHz / fSp;
  const logStep = Math.log(6.4) / 27;
  const hzToMel = (f: number) => (f >= minLogHz ? minLogMel + Math.log(f / minLogHz) / logStep : f / fSp);
  const melToHz = (m: number) => (m >= minLogMel ? minLogHz * Math.exp(logStep * (m - minLogMel)) : fSp * m);
  const nBins = 1 + Math.floor(nFft / 2);
  const fftFreqs = Array.from({ length: nBins }, (_, i) => (i * sampleRate) / nFft);
  const maxMel = hzToMel(sampleRate / 2);
  const melF = Array.from({ length: nMels + 2 }, (_, i) => melToHz((maxMel * i) / (nMels + 1)));
  const out = new Float32Array(nMels * nBins);
  for (let m = 0; m < nMels; m++) {
    const enorm = 2 / (melF[m + 2] - melF[m]);
    for (let k = 0; k < nBins; k++) {
      const lower = (fftFreqs[k] - melF[m]) / (melF[m + 1] - melF[m]);
      const upper = (melF[m + 2] - fftFreqs[k]) / (melF[m + 2] - melF[m + 1]);
      out[m * nBins + k] = Math.max(0, Math.min(lower, upper)) * enorm;
    }
  }
  return out;
}

/** Largest absolute difference between our 80-bin filters and the reference model's. */
export async function checkMelFilters(file = REFERENCE_TEST_MODEL): Promise<number> {
  const ref = await readReferenceAssets(file);
  const ours = slaneyMelFilters(ref.nMel, 2 * (ref.nFft - 1));
  let max = 0;
  for (let i = 0; i < ours.length; i++) max = Math.max(max, Math.abs(ours[i] - ref.melFilters[i]));
  return max;
}

async function filePrefix(h: WhisperHparams, quant: WhisperQuant, referenceModel: string): Promise<Buffer> {
  const ref = await readReferenceAssets(referenceModel);
  const header = Buffer.alloc(48);
  const fields = [
    0x67676d6c,
    h.n_vocab,
    h.n_audio_ctx,
    h.n_audio_state,
    h.n_audio_head,
    h.n_audio_layer,
    h.n_text_ctx,
    h.n_text_state,
    h.n_text_head,
    h.n_text_layer,
    h.n_mels,
    HEADER_FTYPE[quant],
  ];
  fields.forEach((v, i) => {
    header.writeInt32LE(v, 4 * i);
  });
  const filters = h.n_mels === ref.nMel ? ref.melFilters : slaneyMelFilters(h.n_mels, 2 * (ref.nFft - 1));
  const mel = Buffer.alloc(8 + 4 * filters.length);
  mel.writeInt32LE(h.n_mels, 0);
  mel.writeInt32LE(ref.nFft, 4);
  for (let i = 0; i < filters.length; i++) mel.writeFloatLE(filters[i], 8 + 4 * i);
  return Buffer.concat([header, mel, ref.vocab]);
}

// ---------------------------------------------------------------------------------------------------
// Random data

/** mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);
/** float32 -> IEEE half bits (round half up; enough for random weights). */
export function toHalf(value: number): number {
  f32Scratch[0] = value;
  const x = u32Scratch[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  const mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    const m = mant | 0x800000;
    const shift = 14 - exp;
    return sign | ((m >>> shift) + ((m >>> (shift - 1)) & 1));
  }
  return (sign | (exp << 10) | (mant >>> 13)) + ((mant >>> 12) & 1);
}

const AMPLITUDE = 0.02;
/** Pool lengths: primes, in elements (f32/f16) or blocks (quantized). */
const POOL_ELEMENTS = 1_000_003;
const POOL_BLOCKS = 100_003;

function makePool(type: StorageType, next: () => number): Buffer {
  const uniform = () => (next() * 2 - 1) * AMPLITUDE;
  if (type === "f32") {
    const b = Buffer.alloc(4 * POOL_ELEMENTS);
    for (let i = 0; i < POOL_ELEMENTS; i++) b.writeFloatLE(uniform(), 4 * i);
    return b;
  }
  if (type === "f16") {
    const b = Buffer.alloc(2 * POOL_ELEMENTS);
    for (let i = 0; i < POOL_ELEMENTS; i++) b.writeUInt16LE(toHalf(uniform()), 2 * i);
    return b;
  }
  const { bytes } = BLOCK[type];
  const b = Buffer.alloc(bytes * POOL_BLOCKS);
  for (let k = 0; k < b.length; k++) b[k] = Math.floor(next() * 256);
  for (let i = 0; i < POOL_BLOCKS; i++) {
    const o = i * bytes;
    const jitter = 0.75 + 0.5 * next(); // scales vary a little from block to block, as in real files
    if (type === "q8_0") {
      // x = d * q, q in -128..127: |x| <= ~0.02
      b.writeUInt16LE(toHalf((AMPLITUDE / 127) * jitter), o);
    } else if (type === "q5_0") {
      // x = d * (q - 16), q in 0..31
      b.writeUInt16LE(toHalf((AMPLITUDE / 16) * jitter), o);
    } else {
      // q5_1: x = d * q + m, q in 0..31
      b.writeUInt16LE(toHalf(((2 * AMPLITUDE) / 31) * jitter), o);
      b.writeUInt16LE(toHalf(-AMPLITUDE * jitter), o + 2);
    }
  }
  return b;
}

/**
 * Amplitude of decoder.positional_embedding. It dominates the decoder's residual stream, so the
 * greedy token changes from one position to the next, as text does; with everything at ±0.02 the
 * input-independent parts (biases, the cross-attention average over 1500 frames) win and greedy
 * decoding repeats one token, which whisper.cpp flags as a failure (entropy < 2.4) and re-decodes.
 */
const POSITION_AMPLITUDE = 1;
/** Std of a weight of the pools (uniform ±A): used to size the decoder head. */
const WEIGHT_STD = AMPLITUDE / Math.sqrt(3);
/** Target std of the logits: the top token gets p ≈ 1 (avg log-prob of a window ≈ 0 > -1). */
const LOGIT_STD = 50;

class PoolCursor {
  private pos = 0;
  constructor(readonly pool: Buffer) {}
  /** Copies `n` bytes (cycling through the pool) into `dst` at `at`. */
  copyInto(dst: Buffer, at: number, n: number): void {
    let done = 0;
    while (done < n) {
      const take = Math.min(n - done, this.pool.length - this.pos);
      this.pool.copy(dst, at + done, this.pos, this.pos + take);
      done += take;
      this.pos = (this.pos + take) % this.pool.length;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Writer

export interface SyntheticModelOptions {
  shape: WhisperShape;
  quant?: WhisperQuant;
  out: string;
  /** whisper.cpp test model providing the mel filters and vocabulary. */
  referenceModel?: string;
}

export interface SyntheticModelResult {
  path: string;
  bytes: number;
  /** True when an existing file of the expected size was kept. */
  cached: boolean;
  ms: number;
  tensors: number;
}

/** Size of the file writeSyntheticWhisperModel writes. */
export async function syntheticModelSize(
  shape: WhisperShape,
  quant: WhisperQuant = "f16",
  referenceModel = REFERENCE_TEST_MODEL,
): Promise<number> {
  const h = SHAPE_HPARAMS[shape];
  const prefix = await filePrefix(h, quant, referenceModel);
  return whisperTensors(h, quant).reduce((n, t) => n + tensorHeader(t).length + tensorDataBytes(t), prefix.length);
}

export function syntheticModelFileName(shape: WhisperShape, quant: WhisperQuant): string {
  return `synth-v${SYNTH_VERSION}-ggml-${shape}-${quant}.bin`;
}

export async function writeSyntheticWhisperModel(opts: SyntheticModelOptions): Promise<SyntheticModelResult> {
  const t0 = performance.now();
  const quant = opts.quant ?? "f16";
  const referenceModel = opts.referenceModel ?? REFERENCE_TEST_MODEL;
  if (!SHAPE_HPARAMS[opts.shape]) throw new Error(`unknown model shape ${opts.shape}`);
  if (!(quant in HEADER_FTYPE)) throw new Error(`unknown quantization ${quant}`);
  const h = SHAPE_HPARAMS[opts.shape];
  const tensors = whisperTensors(h, quant);
  const expected = await syntheticModelSize(opts.shape, quant, referenceModel);
  const existing = await stat(opts.out).catch(() => null);
  if (existing?.isFile() && existing.size === expected) {
    return { path: opts.out, bytes: expected, cached: true, ms: performance.now() - t0, tensors: tensors.length };
  }

  await mkdir(path.dirname(opts.out), { recursive: true });
  const tmp = `${opts.out}.tmp-${process.pid}`;
  const fh = await open(tmp, "w");
  try {
    const seed = [...`${opts.shape}/${quant}`].reduce((s, c) => Math.imul(s ^ c.charCodeAt(0), 16777619), 2166136261);
    const next = rng(seed);
    const pools = new Map<StorageType, PoolCursor>();
    const pool = (type: StorageType) => {
      let p = pools.get(type);
      if (!p) {
        p = new PoolCursor(makePool(type, next));
        pools.set(type, p);
      }
      return p;
    };

    // Staging buffer: few, large writes.
    const CHUNK = 8 << 20;
    const stage = Buffer.alloc(CHUNK);
    let used = 0;
    let written = 0;
    const flush = async () => {
      let off = 0;
      while (off < used) {
        const { bytesWritten } = await fh.write(stage, off, used - off, written + off);
        off += bytesWritten;
      }
      written += used;
      used = 0;
    };
    const put = async (b: Buffer) => {
      let off = 0;
      while (off < b.length) {
        if (used === CHUNK) await flush();
        const take = Math.min(b.length - off, CHUNK - used);
        b.copy(stage, used, off, off + take);
        used += take;
        off += take;
      }
    };

    await put(await filePrefix(h, quant, referenceModel));
    const headScale = LOGIT_STD / (WEIGHT_STD * Math.sqrt(h.n_text_state));
    for (const t of tensors) {
      await put(tensorHeader(t));
      const n = tensorDataBytes(t);
      if (t.fill === "random") {
        const src = pool(t.type);
        let left = n;
        while (left > 0) {
          if (used === CHUNK) await flush();
          const take = Math.min(left, CHUNK - used);
          src.copyInto(stage, used, take);
          used += take;
          left -= take;
        }
      } else if (t.fill === "positions") {
        const b = Buffer.alloc(n);
        for (let i = 0; i < n; i += 4) b.writeFloatLE((next() * 2 - 1) * POSITION_AMPLITUDE, i);
        await put(b);
      } else {
        const value = t.fill === "ones" ? 1 : t.fill === "zeros" ? 0 : headScale;
        const b = Buffer.alloc(n);
        for (let i = 0; i < n; i += 4) b.writeFloatLE(value, i);
        await put(b);
      }
    }
    await flush();
    if (written !== expected) throw new Error(`wrote ${written} bytes, expected ${expected}`);
    await fh.close();
    await rename(tmp, opts.out);
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
  return { path: opts.out, bytes: expected, cached: false, ms: performance.now() - t0, tensors: tensors.length };
}

// ---------------------------------------------------------------------------------------------------
// Reader (self-check)

export interface GgmlModelSummary {
  hparams: WhisperHparams & { ftype: number };
  nMel: number;
  nFft: number;
  vocabCount: number;
  /** Bytes before the first tensor. */
  prefixBytes: number;
  tensors: Array<{ name: string; dims: number[]; type: number; offset: number; bytes: number }>;
  fileBytes: number;
}

const TYPE_BY_ID = new Map<number, StorageType>(
  Object.entries(GGML_TYPE).map(([k, v]) => [v, k as StorageType] as [number, StorageType]),
);

/** Walks a ggml whisper file (headers only; tensor data are skipped). */
export async function inspectGgmlModel(file: string): Promise<GgmlModelSummary> {
  const fh = await open(file, "r");
  try {
    const fileBytes = (await fh.stat()).size;
    const read = async (pos: number, n: number) => {
      const b = Buffer.alloc(n);
      const { bytesRead } = await fh.read(b, 0, n, pos);
      if (bytesRead !== n) throw new Error(`${file}: truncated at ${pos}`);
      return b;
    };
    // Header, mel filters and vocabulary: well under 4 MB.
    const head = await read(0, Math.min(fileBytes, 4 << 20));
    if (head.readUInt32LE(0) !== 0x67676d6c) throw new Error(`${file}: bad magic`);
    const v = (i: number) => head.readInt32LE(4 * i);
    const hp = {
      n_vocab: v(1),
      n_audio_ctx: v(2),
      n_audio_state: v(3),
      n_audio_head: v(4),
      n_audio_layer: v(5),
      n_text_ctx: v(6),
      n_text_state: v(7),
      n_text_head: v(8),
      n_text_layer: v(9),
      n_mels: v(10),
      ftype: v(11),
    };
    const nMel = head.readInt32LE(48);
    const nFft = head.readInt32LE(52);
    let pos = 56 + 4 * nMel * nFft;
    const vocabCount = head.readInt32LE(pos);
    pos += 4;
    for (let i = 0; i < vocabCount; i++) pos += 4 + head.readInt32LE(pos);
    const prefixBytes = pos;
    const tensors: GgmlModelSummary["tensors"] = [];
    while (pos < fileBytes) {
      const th = await read(pos, 12);
      const nDims = th.readInt32LE(0);
      const nameLen = th.readInt32LE(4);
      const type = th.readInt32LE(8);
      const rest = await read(pos + 12, 4 * nDims + nameLen);
      const dims = Array.from({ length: nDims }, (_, i) => rest.readInt32LE(4 * i));
      const name = rest.subarray(4 * nDims).toString("utf8");
      const storage = TYPE_BY_ID.get(type);
      if (!storage) throw new Error(`${file}: tensor ${name} has unsupported ggml type ${type}`);
      const offset = pos + 12 + 4 * nDims + nameLen;
      const bytes = tensorDataBytes({ dims, type: storage });
      tensors.push({ name, dims, type, offset, bytes });
      pos = offset + bytes;
    }
    if (pos !== fileBytes) throw new Error(`${file}: last tensor ends at ${pos}, file has ${fileBytes} bytes`);
    return { hparams: hp, nMel, nFft, vocabCount, prefixBytes, tensors, fileBytes };
  } finally {
    await fh.close();
  }
}

export function ggmlTypeName(type: number): string {
  return TYPE_BY_ID.get(type) ?? `type${type}`;
}
