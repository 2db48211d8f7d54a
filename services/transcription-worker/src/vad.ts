import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A stretch of speech, in seconds from the start of the file. */
export interface SpeechSpan {
  start: number;
  end: number;
}

export interface DetectSpeechOptions {
  /** Speech probability above which a 32 ms window counts as speech (0.05–0.95, default 0.5). */
  threshold?: number;
  /** Silence that ends a span (default 0.3 s); shorter pauses stay inside it. */
  minSilenceSeconds?: number;
  /** Shortest speech kept (default 0.25 s). */
  minSpeechSeconds?: number;
  /** Past this (≤ 30 s, default 20 s) the detector cuts a span at the next short dip; spans never exceed about twice it. */
  maxSpeechSeconds?: number;
  /** Aborting kills the detector process and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Silero VAD v4 (MIT, see models/LICENSE-silero-vad.txt). */
export const SILERO_VAD_MODEL = fileURLToPath(new URL("../models/silero_vad.onnx", import.meta.url));
const CHILD = fileURLToPath(new URL("./vad-child.mjs", import.meta.url));
const RATE = 16000;

type ChildReply = { spans: Array<[number, number]>; samples: number } | { error: string };

/**
 * Finds the speech in a 16 kHz mono 16-bit PCM WAV (what decodeToWav in audio.ts writes) with Silero
 * VAD. Runs in a child process (vad-child.mjs) fed window by window, so the event loop stays free
 * for hour-long recordings. Spans are sorted, non-overlapping, rounded to the millisecond.
 */
export async function detectSpeech(wavPath: string, opts: DetectSpeechOptions = {}): Promise<SpeechSpan[]> {
  const cfg = {
    wavPath,
    model: SILERO_VAD_MODEL,
    threshold: opts.threshold ?? 0.5,
    minSilenceSeconds: opts.minSilenceSeconds ?? 0.3,
    minSpeechSeconds: opts.minSpeechSeconds ?? 0.25,
    maxSpeechSeconds: opts.maxSpeechSeconds ?? 20,
  };
  // sherpa-onnx logs bad values and then silently detects nothing: refuse them here.
  // (A long maxSpeechSeconds is slow too: sherpa copies the open segment for every 32 ms window.)
  if (!(cfg.threshold >= 0.05 && cfg.threshold <= 0.95)) throw new RangeError(`VAD threshold ${cfg.threshold}`);
  for (const k of ["minSilenceSeconds", "minSpeechSeconds", "maxSpeechSeconds"] as const) {
    if (!(cfg[k] >= 0.01 && cfg[k] <= 30)) throw new RangeError(`VAD ${k} ${cfg[k]}`);
  }
  const { signal } = opts;
  signal?.throwIfAborted();

  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [JSON.stringify(cfg)], {
      execArgv: [],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    let stderr = "";
    let reply: ChildReply | undefined;
    let spawnError: Error | undefined;
    child.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    child.on("message", (m) => {
      reply = m as ChildReply;
    });
    const kill = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", kill, { once: true });
    child.on("error", (err) => {
      spawnError = err;
      if (child.pid === undefined) child.emit("close", null, null);
    });
    child.once("close", (code: number | null, sig: NodeJS.Signals | null) => {
      signal?.removeEventListener("abort", kill);
      if (signal?.aborted) return reject(signal.reason);
      if (reply && "error" in reply) return reject(new Error(`VAD: ${reply.error}`));
      if (!reply || code !== 0 || /Errors in config|nullptr/.test(stderr)) {
        const why = spawnError?.message ?? `exit ${sig ?? code}`;
        return reject(new Error(`VAD process failed (${why}): ${stderr.trim().slice(-500)}`));
      }
      resolve(
        normalizeSpans(
          reply.spans.map(([s, e]) => ({ start: s / RATE, end: e / RATE })),
          reply.samples / RATE,
        ),
      );
    });
  });
}

export interface SpeechChunk {
  start: number;
  end: number;
  /** The speech inside [start, end] (clipped): text Whisper writes outside it is suspect. */
  speech: SpeechSpan[];
}

export interface PlanSpeechChunksOptions {
  /** Longest chunk in seconds (default 30, Whisper's window). */
  target?: number;
  /** A silence longer than this ends a chunk and is left out (default 2 s). */
  maxGap?: number;
  /** Audio kept around speech, in seconds (default 0.2); at most half the pause to a neighbour. */
  pad?: number;
}

/** Below this much speech a chunk joins a neighbour when it can. */
const MIN_CHUNK_SPEECH = 1;
/** A pause this long is as clean a cut as any longer one: then the cut nearest the target wins. */
const CLEAN_PAUSE = 0.5;
/** Cuts are searched from this share of the target on (nearer the start only if nothing fits there). */
const NEAR_TARGET = 0.6;
/** Slack for millisecond rounding, so a rounded chunk never exceeds the target. */
const EPS = 1e-3;

/**
 * Where to cut a recording for Whisper, from its speech spans. Pure. Chunks hold padded speech,
 * never exceed `target`, never contain a pause longer than `maxGap` (those are skipped), and are
 * cut between spans, greedily from the left: the longest pause once the chunk has 0.6× the target
 * (pauses of 0.5 s and more count as equal; then the later cut wins, as Whisper pays for a full
 * 30 s window anyway), avoiding cuts that strand under 1 s of speech. A span too long for one chunk
 * is cut into equal pieces; a chunk with under 1 s of speech joins the neighbour across the shorter
 * pause if the result still fits (never across a skipped silence). No speech: [].
 */
export function planSpeechChunks(
  spans: SpeechSpan[],
  duration: number,
  opts: PlanSpeechChunksOptions = {},
): SpeechChunk[] {
  const { target = 30, maxGap = 2, pad = 0.2 } = opts;
  if (!(pad >= 0 && maxGap >= 0 && target - 2 * pad > 2 * EPS)) {
    throw new RangeError(`planSpeechChunks: target ${target} must exceed twice pad ${pad}; maxGap ${maxGap}`);
  }
  const speech = normalizeSpans(spans, duration);
  if (speech.length === 0) return [];

  // Units: the spans, long ones cut evenly so that each fits in a chunk with its padding.
  const room = target - 2 * pad - EPS;
  const units = speech.flatMap((s) => {
    const k = Math.ceil((s.end - s.start) / room);
    const step = (s.end - s.start) / k;
    return Array.from({ length: k }, (_, i) => ({
      start: s.start + i * step,
      end: i === k - 1 ? s.end : s.start + (i + 1) * step,
    }));
  });
  const n = units.length;
  const gapBefore = (i: number) => (i <= 0 || i >= n ? Number.POSITIVE_INFINITY : units[i].start - units[i - 1].end);
  const lo = (i: number) => Math.max(0, units[i].start - Math.min(pad, gapBefore(i) / 2));
  const hi = (j: number) => Math.min(duration, units[j].end + Math.min(pad, gapBefore(j + 1) / 2));
  const fits = (i: number, j: number) => hi(j) - lo(i) <= target - EPS;
  const talk = [0];
  for (const u of units) talk.push(talk[talk.length - 1] + u.end - u.start);
  const talkIn = (i: number, j: number) => talk[j + 1] - talk[i];

  const groups: Array<[number, number]> = [];
  for (let runStart = 0, k = 1; k <= n; k++) {
    if (k < n && gapBefore(k) <= maxGap) continue;
    groups.push(...mergeTiny(cutRun(runStart, k - 1)));
    runStart = k;
  }

  /** Splits units a..b (pauses ≤ maxGap between them) into fitting groups, greedily from the left. */
  function cutRun(a: number, b: number): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (let i = a; i <= b; ) {
      let last = i;
      while (last < b && fits(i, last + 1)) last++;
      if (last === b) {
        out.push([i, b]);
        break;
      }
      // Best cut after j: leaves ≥ 1 s of speech, then near the target, then the pause, then later.
      let best = i;
      let bestScore: number[] = [];
      for (let j = i; j <= last; j++) {
        const score = [
          talkIn(j + 1, b) >= MIN_CHUNK_SPEECH ? 1 : 0,
          hi(j) - lo(i) >= NEAR_TARGET * target ? 1 : 0,
          round3(Math.min(gapBefore(j + 1), CLEAN_PAUSE)),
          j,
        ];
        if (bestScore.length === 0 || compare(score, bestScore) > 0) [best, bestScore] = [j, score];
      }
      out.push([i, best]);
      i = best + 1;
    }
    return out;
  }

  /** Joins groups with under MIN_CHUNK_SPEECH of speech to the nearer neighbour that still fits. */
  function mergeTiny(run: Array<[number, number]>): Array<[number, number]> {
    for (let g = 0; g < run.length; ) {
      const [i, j] = run[g];
      if (talkIn(i, j) >= MIN_CHUNK_SPEECH) {
        g++;
        continue;
      }
      const prev = g > 0 && fits(run[g - 1][0], j) ? gapBefore(i) : Number.POSITIVE_INFINITY;
      const next = g + 1 < run.length && fits(i, run[g + 1][1]) ? gapBefore(j + 1) : Number.POSITIVE_INFINITY;
      if (prev === Number.POSITIVE_INFINITY && next === Number.POSITIVE_INFINITY) g++;
      else if (prev <= next) {
        run.splice(g - 1, 2, [run[g - 1][0], j]);
        g--;
      } else run.splice(g, 2, [i, run[g + 1][1]]);
    }
    return run;
  }

  return groups.map(([i, j]) => {
    const start = round3(lo(i));
    const end = round3(hi(j));
    const inside = speech
      .filter((s) => s.end > start && s.start < end)
      .map((s) => ({ start: round3(Math.max(s.start, start)), end: round3(Math.min(s.end, end)) }))
      .filter((s) => s.end > s.start);
    return { start, end, speech: inside };
  });
}

/** Clamped to [0, duration], sorted, overlaps merged, empty spans dropped. */
function normalizeSpans(spans: SpeechSpan[], duration: number): SpeechSpan[] {
  const out: SpeechSpan[] = [];
  const clamped = spans
    .map((s) => ({ start: Math.max(0, s.start), end: Math.min(duration, s.end) }))
    .filter((s) => Number.isFinite(s.start) && Number.isFinite(s.end) && s.end > s.start)
    .sort((a, b) => a.start - b.start);
  for (const s of clamped) {
    const prev = out[out.length - 1];
    if (prev && s.start < prev.end) prev.end = Math.max(prev.end, s.end);
    else out.push({ ...s });
  }
  return out.map((s) => ({ start: round3(s.start), end: round3(s.end) })).filter((s) => s.end > s.start);
}

function compare(a: number[], b: number[]): number {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] - b[k];
  return 0;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
