// Neural diarization of a long recording in windows: sherpa-onnx's diarizer holds the whole input as
// samples and clusters every embedding of it at once, so an hours-long recording is cut into windows
// (in the silence between speech), each window is diarized on its own, and the windows' speakers are
// linked by their voice (one embedding per speaker per window) into the recording's speakers.
import type { SpeechSpan } from "../vad.ts";

/** Longest window (seconds): its samples (~77 MB as floats) and its clustering bound the memory. */
export const WINDOW_SECONDS = 20 * 60;

export interface DiarizationWindow {
  start: number;
  end: number;
}

/**
 * Windows of at most `maxSeconds` covering every speech span, cut in the middle of the gap between
 * two spans; a span longer than a window is cut inside it. One window when the speech fits. Pure.
 */
export function diarizationWindows(speech: SpeechSpan[], maxSeconds = WINDOW_SECONDS): DiarizationWindow[] {
  const spans = [...speech].filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  if (spans.length === 0) return [];
  const windows: DiarizationWindow[] = [];
  let start = spans[0].start;
  let lastEnd = start;
  for (const span of spans) {
    if (span.end - start > maxSeconds && lastEnd > start) {
      // Close the window in the gap before this span.
      const cut = Math.min((lastEnd + span.start) / 2, start + maxSeconds);
      windows.push({ start, end: Math.max(cut, lastEnd) });
      start = Math.max(cut, lastEnd);
    }
    // A span longer than a window is cut inside it.
    while (span.end - start > maxSeconds) {
      windows.push({ start, end: start + maxSeconds });
      start += maxSeconds;
    }
    lastEnd = Math.max(lastEnd, span.end);
  }
  windows.push({ start, end: lastEnd });
  return windows;
}

/** One speaker of one window: the voice print of what that speaker says there. */
export interface WindowVoice {
  window: number;
  /** The speaker's number inside its window (the diarizer's label). */
  local: number;
  vector: ArrayLike<number>;
}

const cosine = (a: Float64Array, b: Float64Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : -1;
};

/** How much less alike two voices of the same window count: the diarizer told them apart already. */
export const SAME_WINDOW_PENALTY = 0.3;

/**
 * The recording's speaker of each window voice (same order), 0, 1, … by first appearance: average-
 * linkage agglomerative clustering on cosine similarity (two voices of one window count
 * SAME_WINDOW_PENALTY less alike), down to `speakers` when given, else while the closest pair is at
 * least `threshold` alike; never more than `maxSpeakers`. Pure.
 */
export function linkWindowVoices(
  voices: WindowVoice[],
  opts: { speakers?: number; threshold: number; maxSpeakers: number },
): number[] {
  const n = voices.length;
  const clusters = voices.map((v, i) => ({
    members: [i],
    windows: new Set([v.window]),
    sum: Float64Array.from(v.vector as ArrayLike<number>),
  }));
  const mean = (c: (typeof clusters)[number]) => c.sum.map((x) => x / c.members.length);
  let alive = clusters.map((_, i) => i);
  const target = Math.max(1, Math.min(opts.speakers ?? 1, opts.maxSpeakers));
  while (alive.length > 1) {
    let best = Number.NEGATIVE_INFINITY;
    let pair: [number, number] = [alive[0], alive[1]];
    for (let x = 0; x < alive.length; x++) {
      for (let y = x + 1; y < alive.length; y++) {
        const a = clusters[alive[x]];
        const b = clusters[alive[y]];
        const shared = [...a.windows].some((w) => b.windows.has(w));
        const sim = cosine(mean(a), mean(b)) - (shared ? SAME_WINDOW_PENALTY : 0);
        if (sim > best) {
          best = sim;
          pair = [alive[x], alive[y]];
        }
      }
    }
    const enough = opts.speakers !== undefined ? alive.length <= target : best < opts.threshold;
    if (enough && alive.length <= opts.maxSpeakers) break;
    const [a, b] = pair;
    clusters[a].members.push(...clusters[b].members);
    for (const w of clusters[b].windows) clusters[a].windows.add(w);
    clusters[a].sum = clusters[a].sum.map((x, i) => x + clusters[b].sum[i]);
    alive = alive.filter((i) => i !== b);
  }
  const label = new Array<number>(n).fill(0);
  for (const [k, c] of alive.map((i) => clusters[i]).entries()) for (const m of c.members) label[m] = k;
  // Renumber by first appearance (window order, then local order).
  const order = voices
    .map((_, i) => i)
    .sort((i, j) => voices[i].window - voices[j].window || voices[i].local - voices[j].local);
  const renumber = new Map<number, number>();
  for (const i of order) if (!renumber.has(label[i])) renumber.set(label[i], renumber.size);
  return label.map((l) => renumber.get(l) ?? 0);
}
