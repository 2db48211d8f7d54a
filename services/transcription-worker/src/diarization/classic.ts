import type { JobNotice } from "@kikitori/shared";
import type { SpeechSpan } from "../vad.ts";
import { childModule, runChild } from "./child.ts";
import { bicClusters, refineByLikelihood } from "./cluster.ts";
import { type Piece, RATE, speechPieces } from "./features.ts";
import {
  type DiarizationEngine,
  type DiarizeOptions,
  MAX_SPEAKERS,
  normalizeSpeakerSpans,
  type SpeakerSpan,
} from "./port.ts";

const CHILD = childModule("classic-child", import.meta.url);

/**
 * Speaker spans from labelled pieces: each piece keeps its speaker, the first and last pieces of a
 * span stretch to the span's edges, and a span too short to have pieces takes the speaker of the
 * piece nearest to it in time. Pure.
 */
export function spansFromPieces(
  speech: SpeechSpan[],
  pieces: Array<Pick<Piece, "start" | "end" | "span">>,
  labels: ArrayLike<number>,
): SpeakerSpan[] {
  if (pieces.length === 0) return speech.map((s) => ({ start: s.start, end: s.end, speaker: 0 }));
  const bySpan = new Map<number, number[]>();
  pieces.forEach((p, i) => {
    bySpan.set(p.span, [...(bySpan.get(p.span) ?? []), i]);
  });
  const centre = (i: number) => (pieces[i].start + pieces[i].end) / 2;
  const out: SpeakerSpan[] = [];
  speech.forEach((span, s) => {
    const idx = bySpan.get(s);
    if (!idx) {
      const mid = (span.start + span.end) / 2;
      let best = 0;
      for (let i = 1; i < pieces.length; i++) if (Math.abs(centre(i) - mid) < Math.abs(centre(best) - mid)) best = i;
      out.push({ start: span.start, end: span.end, speaker: labels[best] });
      return;
    }
    idx.forEach((i, j) => {
      out.push({
        start: j === 0 ? span.start : pieces[i].start,
        end: j === idx.length - 1 ? span.end : pieces[i].end,
        speaker: labels[i],
      });
    });
  });
  return out;
}

/** ΔBIC penalty weight, tuned on the two-voice interviews of `npm run bench:diarization`. */
export const BIC_LAMBDA = 3;

/** The whole classic pipeline on samples: pieces, ΔBIC clustering, re-assignment, spans. Pure. */
export function diarizeSamples(samples: Float32Array, speech: SpeechSpan[], speakers?: number): SpeakerSpan[] {
  return diarizePieces(speechPieces(samples, speech), speech, samples.length / RATE, speakers);
}

/** Clustering, re-assignment and spans, from the pieces' statistics (the recording itself is not needed). */
export function diarizePieces(
  pieces: Piece[],
  speech: SpeechSpan[],
  seconds: number,
  speakers?: number,
): SpeakerSpan[] {
  const stats = pieces.map((p) => p.stats);
  const { labels } = bicClusters(stats, { k: speakers, maxK: MAX_SPEAKERS, lambda: BIC_LAMBDA });
  const refined = refineByLikelihood(stats, labels);
  return normalizeSpeakerSpans(spansFromPieces(speech, pieces, refined), seconds);
}

/**
 * `classic`: no model, always available. Each piece of speech (a VAD span, long ones cut into ≤ 6 s)
 * is described by a diagonal Gaussian over its frames' MFCCs, deltas and pitch; pieces are merged by
 * ΔBIC down to the user's speaker count (else while merging still lowers the BIC, at most 6), then
 * each piece moves to the speaker whose model explains it best. Made for the common case of two clearly different voices. Runs in a
 * child process (killed on abort): an hour of speech is tens of seconds of feature extraction.
 */
export class ClassicDiarizationEngine implements DiarizationEngine {
  readonly name = "classic";
  readonly kind = "classic" as const;
  readonly notice?: JobNotice;

  /** `notice`: this engine stands in for the neural one, which failed at start (see DiarizationEngine). */
  constructor(opts: { notice?: JobNotice } = {}) {
    this.notice = opts.notice;
  }

  async check(): Promise<void> {}

  diarize(wavPath: string, speech: SpeechSpan[], opts: DiarizeOptions = {}): Promise<SpeakerSpan[]> {
    if (speech.length === 0) return Promise.resolve([]);
    return runChild<SpeakerSpan[]>(CHILD, { wavPath, speech, speakers: opts.speakers }, opts.signal);
  }
}
