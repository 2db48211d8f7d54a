import { execFile, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import type { AudioFormat } from "../transcription.ts";

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** Whether a command is on the PATH. */
export function onPath(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
}

let ffmpeg: string | undefined;
let ffprobe: string | undefined;
/** FFMPEG_PATH, else the system ffmpeg, else the binary shipped by @ffmpeg-installer. */
export function ffmpegPath(): string {
  ffmpeg ??=
    process.env.FFMPEG_PATH ||
    (onPath("ffmpeg") ? "ffmpeg" : (require("@ffmpeg-installer/ffmpeg") as { path: string }).path);
  return ffmpeg;
}
/** FFPROBE_PATH, else the system ffprobe, else the binary shipped by @ffprobe-installer. */
export function ffprobePath(): string {
  ffprobe ??=
    process.env.FFPROBE_PATH ||
    (onPath("ffprobe") ? "ffprobe" : (require("@ffprobe-installer/ffprobe") as { path: string }).path);
  return ffprobe;
}

const MIME: Record<AudioFormat, string> = {
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  flac: "audio/flac",
  aac: "audio/aac",
  m4a: "audio/mp4",
};
export const mimeOf = (f: AudioFormat) => MIME[f];

/**
 * Recognises the accepted containers from their first bytes (never from the name): MP3 (ID3 tag
 * or MPEG-1/2 Layer III frame sync), WAV (RIFF/WAVE), Ogg, FLAC, AAC in ADTS frames, and AAC in
 * MP4/M4A (ftyp box). An ID3 tag is skipped to find what follows it.
 */
export function sniffAudioFormat(head: Uint8Array): AudioFormat | null {
  const ascii = (o: number, n: number) => String.fromCharCode(...head.subarray(o, o + n));
  if (head.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 4) === "WAVE") return "wav";
  if (head.length >= 4 && ascii(0, 4) === "OggS") return "ogg";
  if (head.length >= 4 && ascii(0, 4) === "fLaC") return "flac";
  if (head.length >= 12 && ascii(4, 4) === "ftyp") {
    const brand = ascii(8, 4);
    if (["M4A ", "M4B ", "mp42", "mp41", "isom", "iso2", "dash", "3gp4", "3gp5", "MSNV", "M4V "].includes(brand))
      return "m4a";
    return null;
  }
  let o = 0;
  if (head.length >= 10 && ascii(0, 3) === "ID3") {
    const size = ((head[6] & 0x7f) << 21) | ((head[7] & 0x7f) << 14) | ((head[8] & 0x7f) << 7) | (head[9] & 0x7f);
    o = 10 + size + (head[5] & 0x10 ? 10 : 0);
    if (o + 4 > head.length) return "mp3"; // a long tag: the frames follow beyond what we read
    if (ascii(o, 4) === "fLaC") return "flac";
  }
  if (head.length >= o + 2 && head[o] === 0xff) {
    const b1 = head[o + 1];
    if ((b1 & 0xf6) === 0xf0) return "aac"; // ADTS: sync 0xFFF, layer 00
    if ((b1 & 0xe0) === 0xe0 && ((b1 >> 1) & 0x03) === 0x01) return "mp3"; // frame sync, Layer III
  }
  return o > 0 ? "mp3" : null;
}

export interface ProbeResult {
  formatName: string;
  durationSeconds: number;
  codec: string | null;
}

/** ffprobe: container, duration and the first audio stream's codec; null when unreadable. */
export async function probeAudio(file: string): Promise<ProbeResult | null> {
  try {
    const { stdout } = await run(
      ffprobePath(),
      [
        "-v",
        "error",
        "-show_entries",
        "format=format_name,duration:stream=codec_type,codec_name,duration",
        "-of",
        "json",
        file,
      ],
      { timeout: 30_000 },
    );
    const j = JSON.parse(stdout) as {
      format?: { format_name?: string; duration?: string };
      streams?: Array<{ codec_type?: string; codec_name?: string; duration?: string }>;
    };
    const audio = j.streams?.find((s) => s.codec_type === "audio");
    if (!audio) return null;
    const duration = Number(j.format?.duration ?? audio.duration ?? Number.NaN);
    return {
      formatName: j.format?.format_name ?? "",
      durationSeconds: Number.isFinite(duration) ? duration : 0,
      codec: audio.codec_name ?? null,
    };
  } catch {
    return null;
  }
}

/** The last `time=hh:mm:ss.xx` ffmpeg reported on stderr, in seconds (0 when it reported none). */
export function lastProgressSeconds(stderr: string): number {
  const last = [...stderr.matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)].at(-1);
  return last ? Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]) : 0;
}

/**
 * Decodes the whole file to nothing and measures what really decodes: catches files whose header
 * promises audio but whose data is missing or broken. Returns the decoded duration in seconds.
 * `maxSeconds` stops the decode there (a file longer than the quota needs no more than that read).
 */
export async function decodedSeconds(file: string, maxSeconds?: number): Promise<number> {
  const limit = maxSeconds !== undefined && Number.isFinite(maxSeconds) ? ["-t", String(Math.max(1, maxSeconds))] : [];
  try {
    const { stderr } = await run(
      ffmpegPath(),
      ["-hide_banner", "-nostats", "-v", "info", ...limit, "-i", file, "-map", "0:a:0", "-f", "null", "-"],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    return lastProgressSeconds(stderr);
  } catch {
    return 0;
  }
}
