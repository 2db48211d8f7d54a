import Meyda from "meyda";
import Pitchfinder from "pitchfinder";
import type { SpeechSpan } from "../vad.ts";
import type { FrameStats } from "./cluster.ts";

/**
 * Acoustic features for the `classic` diarization engine, from maintained libraries: MFCCs (Meyda)
 * with their deltas, and pitch (pitchfinder's YIN). Pure functions over 16 kHz mono samples.
 *
 * Speech is cut into pieces: each VAD span, long ones cut evenly into pieces of at most 6 s. A piece
 * is described by the statistics of a diagonal Gaussian over its frames: MFCC 1–12 (the vocal
 * tract), their deltas (how the voice moves) and the log pitch of its voiced frames. c0 (loudness)
 * is left out: it tells the distance to the microphone, not the voice.
 */

export const RATE = 16_000;
/** 32 ms analysis frames, hopping 16 ms. */
export const FRAME = 512;
export const HOP = 256;
const MFCC_COEFFS = 13;
/** Pitch: 64 ms frames (YIN needs two periods of a 60 Hz voice), on every third analysis frame. */
const PITCH_FRAME = 1024;
const PITCH_EVERY = 3;
const MIN_F0 = 60;
const MAX_F0 = 400;

/** Longest piece: long spans are cut evenly into pieces no longer than this. */
export const MAX_PIECE_SECONDS = 6;
/** Speech shorter than this is too little to describe (it takes its nearest neighbour's speaker). */
export const MIN_PIECE_SECONDS = 0.5;

/** 12 MFCCs, 12 deltas, log pitch. */
export const DIMS = 25;

export interface FrameRow {
  mfcc: Float64Array;
  /** Hz, or NaN where the frame is unvoiced or not analysed. */
  f0: number;
}

/** A piece of speech and its frames' statistics. */
export interface Piece {
  start: number;
  end: number;
  /** Index of the VAD span it lies in. */
  span: number;
  stats: FrameStats;
}

let configured = false;
function configureMeyda(): void {
  if (configured) return;
  Meyda.bufferSize = FRAME;
  Meyda.sampleRate = RATE;
  Meyda.numberOfMFCCCoefficients = MFCC_COEFFS;
  Meyda.melBands = 26;
  Meyda.windowingFunction = "hamming";
  configured = true;
}

/** Frames of samples[from, to): MFCCs on every frame, pitch on every third. */
export function framesOf(
  samples: Float32Array,
  from: number,
  to: number,
  pitch: (f: Float32Array) => number | null,
): FrameRow[] {
  configureMeyda();
  const rows: FrameRow[] = [];
  const frame = new Float32Array(FRAME);
  for (let at = from, i = 0; at + FRAME <= to; at += HOP, i++) {
    // Pitch first: Meyda applies its window to the buffer it is given, in place.
    let f0 = Number.NaN;
    if (i % PITCH_EVERY === 0) {
      const p0 = Math.max(0, Math.min(samples.length - PITCH_FRAME, at + FRAME / 2 - PITCH_FRAME / 2));
      const hz = pitch(samples.subarray(p0, p0 + PITCH_FRAME));
      if (hz && hz >= MIN_F0 && hz <= MAX_F0) f0 = hz;
    }
    frame.set(samples.subarray(at, at + FRAME));
    const features = Meyda.extract(["mfcc"], frame) as { mfcc: number[] } | null;
    rows.push({ mfcc: Float64Array.from(features?.mfcc ?? new Array(MFCC_COEFFS).fill(0)), f0 });
  }
  return rows;
}

/** Deltas of one coefficient track (regression over ±2 frames, as HTK computes them). */
export function deltas(rows: FrameRow[], c: number): Float64Array {
  const n = rows.length;
  const out = new Float64Array(n);
  const at = (i: number) => rows[Math.min(n - 1, Math.max(0, i))].mfcc[c];
  for (let i = 0; i < n; i++) out[i] = (at(i + 1) - at(i - 1) + 2 * (at(i + 2) - at(i - 2))) / 10;
  return out;
}

/** Pieces of one span: the span itself, or equal pieces of at most MAX_PIECE_SECONDS. None when too short. */
export function pieceBounds(span: SpeechSpan, max = MAX_PIECE_SECONDS): Array<[number, number]> {
  const length = span.end - span.start;
  if (length < MIN_PIECE_SECONDS) return [];
  const k = Math.ceil(length / max);
  return Array.from({ length: k }, (_, i) => [span.start + (i * length) / k, span.start + ((i + 1) * length) / k]);
}

/**
 * The pieces of the speech in `samples` (16 kHz mono) with their frame statistics. Each VAD span is
 * analysed on its own (deltas never run across a pause). Pure and deterministic.
 */
export function speechPieces(samples: Float32Array, speech: SpeechSpan[], maxPiece = MAX_PIECE_SECONDS): Piece[] {
  const pitch = pitchOf();
  const out: Piece[] = [];
  speech.forEach((span, spanIndex) => {
    if (pieceBounds(span, maxPiece).length === 0) return;
    const from = Math.max(0, Math.floor(span.start * RATE));
    const to = Math.min(samples.length, Math.ceil(span.end * RATE));
    out.push(...spanPieces(framesOf(samples, from, to, pitch), span, spanIndex, maxPiece));
  });
  return out;
}

/**
 * The same pieces, reading the recording span by span (`read(from, to)` gives samples [from, to)):
 * only one span and its margin are in memory, so hours of audio cost what one span costs. Each span
 * is read with PITCH_FRAME samples either side, which is all its frames look at, so the pieces are
 * exactly those of speechPieces.
 */
export async function speechPiecesFrom(
  reader: { samples: number; read: (from: number, to: number) => Promise<Float32Array> },
  speech: SpeechSpan[],
  maxPiece = MAX_PIECE_SECONDS,
): Promise<Piece[]> {
  const pitch = pitchOf();
  const out: Piece[] = [];
  for (const [spanIndex, span] of speech.entries()) {
    if (pieceBounds(span, maxPiece).length === 0) continue;
    const from = Math.max(0, Math.floor(span.start * RATE));
    const to = Math.min(reader.samples, Math.ceil(span.end * RATE));
    const base = Math.max(0, from - PITCH_FRAME);
    const local = await reader.read(base, Math.min(reader.samples, to + PITCH_FRAME));
    out.push(...spanPieces(framesOf(local, from - base, to - base, pitch), span, spanIndex, maxPiece));
  }
  return out;
}

function pitchOf(): (f: Float32Array) => number | null {
  const yin = Pitchfinder.YIN({ sampleRate: RATE, threshold: 0.15 });
  return (f: Float32Array) => yin(f);
}

/** The pieces of one VAD span from its frames. */
function spanPieces(rows: FrameRow[], span: SpeechSpan, spanIndex: number, maxPiece: number): Piece[] {
  const bounds = pieceBounds(span, maxPiece);
  if (bounds.length === 0 || rows.length < 4) return [];
  const tracks = [
    ...Array.from({ length: 12 }, (_, k) => Float64Array.from(rows, (r) => r.mfcc[k + 1])),
    ...Array.from({ length: 12 }, (_, k) => deltas(rows, k + 1)),
  ];
  return bounds.map(([ps, pe]) => {
    const a = Math.max(0, Math.min(rows.length - 1, Math.floor(((ps - span.start) * RATE) / HOP)));
    const b = Math.max(a + 1, Math.min(rows.length, Math.floor(((pe - span.start) * RATE - FRAME) / HOP) + 1));
    const logF0: number[] = [];
    for (let i = a; i < b; i++) if (!Number.isNaN(rows[i].f0)) logF0.push(Math.log(rows[i].f0));
    const stats: FrameStats = {
      counts: new Float64Array(DIMS).fill(b - a),
      sum: new Float64Array(DIMS),
      sumsq: new Float64Array(DIMS),
    };
    tracks.forEach((t, k) => {
      for (let i = a; i < b; i++) {
        stats.sum[k] += t[i];
        stats.sumsq[k] += t[i] * t[i];
      }
    });
    stats.counts[24] = logF0.length;
    for (const x of logF0) {
      stats.sum[24] += x;
      stats.sumsq[24] += x * x;
    }
    return { start: round3(ps), end: round3(pe), span: spanIndex, stats };
  });
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
