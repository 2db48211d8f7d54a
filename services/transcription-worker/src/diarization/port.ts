import type { DIARIZATION_ENGINES, JobNotice } from "@kikitori/shared";
import type { SpeechSpan } from "../vad.ts";

export { MAX_SPEAKERS } from "@kikitori/shared";

/** Who spoke when: a stretch of the recording (seconds) and its speaker (0, 1, … in order of first appearance). */
export type SpeakerSpan = {
  start: number;
  end: number;
  speaker: number;
};

export interface DiarizeOptions {
  /** The number of speakers when the user knows it (1–6); undefined: estimated. */
  speakers?: number;
  /** Aborting kills the engine's process and rejects with the signal's reason. */
  signal?: AbortSignal;
}

export type DiarizationEngineName = (typeof DIARIZATION_ENGINES)[number];

/** The diarization port: a 16 kHz mono WAV and its speech (VAD) in, speaker spans out. */
export interface DiarizationEngine {
  /** Shown on the job ("classic", "sherpa:titanet-small"). */
  readonly name: string;
  readonly kind: DiarizationEngineName;
  /** Set when this engine stands in for one that failed at start: every job it diarizes carries it. */
  readonly notice?: JobNotice;
  /** Fails with a clear message when the engine cannot work (a model missing or corrupt). */
  check(): Promise<void>;
  diarize(wavPath: string, speech: SpeechSpan[], opts?: DiarizeOptions): Promise<SpeakerSpan[]>;
}

/**
 * Spans sorted, clipped to [0, duration], neighbours of the same speaker joined, and speakers
 * renumbered 0, 1, … in order of first appearance. Pure.
 */
export function normalizeSpeakerSpans(spans: SpeakerSpan[], duration = Number.POSITIVE_INFINITY): SpeakerSpan[] {
  const sorted = spans
    .map((s) => ({ start: Math.max(0, s.start), end: Math.min(duration, s.end), speaker: s.speaker }))
    .filter((s) => s.end - s.start > 1e-3)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const ids = new Map<number, number>();
  const out: SpeakerSpan[] = [];
  for (const s of sorted) {
    if (!ids.has(s.speaker)) ids.set(s.speaker, ids.size);
    const speaker = ids.get(s.speaker) as number;
    const last = out.at(-1);
    const start = last ? Math.max(s.start, Math.min(last.end, s.end)) : s.start;
    if (last && last.speaker === speaker && start - last.end < 0.5) {
      last.end = Math.max(last.end, s.end);
      continue;
    }
    if (s.end - start <= 1e-3) continue;
    out.push({ start: round3(start), end: round3(s.end), speaker });
  }
  return out;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
