import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { AudioFormat } from "@kikitori/shared";
import { ffmpegPath, lastProgressSeconds, userMediaInput } from "@kikitori/shared/server";

const run = promisify(execFile);

/** What was accepted at upload: the sniffed container, the audio stream chosen and the seconds charged. */
export interface AcceptedAudio {
  format: AudioFormat;
  /** 0-based among the file's audio streams. */
  stream: number;
  /** Decode no further than this (the length measured and charged at upload). */
  maxSeconds?: number;
}

/**
 * Decodes an accepted recording to 16 kHz mono 16-bit PCM WAV (what every engine and the VAD take):
 * with the demuxer of its sniffed format and the file protocol only (no playlist can open another
 * file), exactly the audio stream that was measured at upload, and no further than its charged length.
 * `duration` is the decoded length in seconds.
 */
export async function decodeToWav(input: string, output: string, source: AcceptedAudio): Promise<{ duration: number }> {
  // A little over the charged length: the upload measured it on its own decoder's frame boundaries.
  const limit = source.maxSeconds !== undefined ? ["-t", String(round3(source.maxSeconds + 0.5))] : [];
  const { stderr } = await run(
    ffmpegPath(),
    [
      ...["-hide_banner", "-nostats", "-v", "info", "-y"],
      ...userMediaInput(input, source.format),
      ...["-map", `0:a:${source.stream}`, ...limit],
      ...["-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", output],
    ],
    { timeout: 600_000, maxBuffer: 32 * 1024 * 1024 },
  );
  return { duration: lastProgressSeconds(stderr) };
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
