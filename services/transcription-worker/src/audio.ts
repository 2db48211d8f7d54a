import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ffmpegPath, lastProgressSeconds } from "@kikitori/shared/server";

const run = promisify(execFile);

/**
 * Decodes any accepted input to 16 kHz mono 16-bit PCM WAV (what every engine and the VAD take).
 * `duration` is the decoded length in seconds.
 */
export async function decodeToWav(input: string, output: string): Promise<{ duration: number }> {
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
      "-ac",
      "1",
      "-ar",
      "16000",
      "-c:a",
      "pcm_s16le",
      output,
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
