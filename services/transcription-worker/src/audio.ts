import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ffmpegPath, lastProgressSeconds } from "@kikitori/shared/server";

const run = promisify(execFile);

export interface Silence {
  start: number;
  end: number;
}

/**
 * Decodes any accepted input to 16 kHz mono 16-bit PCM WAV (what both engines take best) and, in the
 * same ffmpeg run, finds the silences of at least `minSeconds` below `noiseDb` (silencedetect on the
 * decoded audio). `duration` is the decoded length in seconds.
 */
export async function decodeAndFindSilences(
  input: string,
  output: string,
  noiseDb = -35,
  minSeconds = 0.3,
): Promise<{ silences: Silence[]; duration: number }> {
  const { stderr } = await run(
    ffmpegPath(),
    [
      "-hide_banner",
      "-nostats",
      "-v",
      "info",
      "-y",
      "-i",
      input,
      "-vn",
      "-af",
      `aresample=16000,aformat=channel_layouts=mono,silencedetect=noise=${noiseDb}dB:d=${minSeconds}`,
      "-c:a",
      "pcm_s16le",
      output,
    ],
    { timeout: 600_000, maxBuffer: 32 * 1024 * 1024 },
  );
  const silences: Silence[] = [];
  let open: number | null = null;
  for (const line of stderr.split("\n")) {
    const s = /silence_start: (-?[\d.]+)/.exec(line);
    if (s) open = Math.max(0, Number(s[1]));
    const e = /silence_end: ([\d.]+)/.exec(line);
    if (e && open !== null) {
      silences.push({ start: open, end: Number(e[1]) });
      open = null;
    }
  }
  const duration = lastProgressSeconds(stderr);
  if (open !== null) silences.push({ start: open, end: duration });
  return { silences, duration };
}

/**
 * Where to cut a recording: pieces of about `target` seconds, each cut in the middle of the
 * silence nearest to the target (searched between 0.6× and 1.4× of it), else a hard cut at the
 * target. A tail shorter than a third of the target joins the previous piece. Pure.
 */
export function planChunks(duration: number, silences: Silence[], target = 30): Array<{ start: number; end: number }> {
  if (duration <= 0) return [];
  const out: Array<{ start: number; end: number }> = [];
  let start = 0;
  while (duration - start > target * 1.4) {
    const ideal = start + target;
    const lo = start + target * 0.6;
    const hi = start + target * 1.4;
    let best: number | null = null;
    for (const s of silences) {
      const mid = (s.start + s.end) / 2;
      if (mid <= lo || mid >= hi) continue;
      if (best === null || Math.abs(mid - ideal) < Math.abs(best - ideal)) best = mid;
    }
    const cut = best ?? ideal;
    out.push({ start, end: cut });
    start = cut;
  }
  if (duration - start < target / 3 && out.length > 0) out[out.length - 1].end = duration;
  else out.push({ start, end: duration });
  return out.map((c) => ({ start: round3(c.start), end: round3(c.end) }));
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** Cuts [start, end) out of a PCM WAV (sample-exact, no re-encoding; the seek is on the input, so a late piece does not decode from 0). */
export async function cutWav(input: string, start: number, end: number, output: string): Promise<void> {
  await run(
    ffmpegPath(),
    [
      "-hide_banner",
      "-v",
      "error",
      "-y",
      "-ss",
      String(start),
      "-i",
      input,
      "-t",
      String(round3(end - start)),
      "-c:a",
      "pcm_s16le",
      output,
    ],
    { timeout: 120_000 },
  );
}
