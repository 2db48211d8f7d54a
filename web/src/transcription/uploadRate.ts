/** The upload's measured speed and the time left at it, from the progress samples of the last seconds. */
import { useRef } from "react";

/** Bytes sent at a moment (ms since the epoch). */
export interface RateSample {
  at: number;
  sent: number;
}

/** How far back the speed is measured: recent enough to follow a changing line, long enough to be steady. */
export const RATE_WINDOW_MS = 8_000;

/**
 * Bytes per second over the samples (oldest first) and the seconds left for `total` at that speed;
 * null until at least a second of progress is measured.
 */
export function uploadRate(
  samples: readonly RateSample[],
  total: number,
): { bytesPerSecond: number; eta: number } | null {
  if (samples.length < 2) return null;
  const first = samples[0];
  const last = samples[samples.length - 1];
  const seconds = (last.at - first.at) / 1000;
  const bytes = last.sent - first.sent;
  if (seconds < 1 || bytes <= 0) return null;
  const bytesPerSecond = bytes / seconds;
  return { bytesPerSecond, eta: Math.max(0, total - last.sent) / bytesPerSecond };
}

/** Keeps the samples of the last RATE_WINDOW_MS (and the one before, so the window is full) as `sent` moves. */
export function addSample(samples: readonly RateSample[], sample: RateSample): RateSample[] {
  const prev = samples[samples.length - 1];
  const kept = prev && sample.sent < prev.sent ? [] : [...samples];
  kept.push(sample);
  while (kept.length > 2 && kept[1].at <= sample.at - RATE_WINDOW_MS) kept.shift();
  return kept;
}

/** The speed and time left of the upload in progress (null before it can be measured). */
export function useUploadRate(sent: number | null, total: number) {
  const samples = useRef<RateSample[]>([]);
  if (sent === null) samples.current = [];
  else if (samples.current[samples.current.length - 1]?.sent !== sent) {
    samples.current = addSample(samples.current, { at: Date.now(), sent });
  }
  return uploadRate(samples.current, total);
}
