import { execFile, spawnSync } from "node:child_process";
import { open } from "node:fs/promises";
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
  webm: "audio/webm",
};
export const mimeOf = (f: AudioFormat) => MIME[f];

/**
 * The demuxer each accepted container is read with. Every ffprobe/ffmpeg call on a user's file forces
 * it (and allows only the file protocol), so ffmpeg never guesses the format from the content: a
 * playlist (HLS, ffconcat, SDP, …) dressed up as audio can then never make it open another file.
 */
const DEMUXER: Record<AudioFormat, string> = {
  mp3: "mp3",
  wav: "wav",
  ogg: "ogg",
  flac: "flac",
  aac: "aac",
  m4a: "mov",
  webm: "matroska",
};

/** ffmpeg/ffprobe input options for a user's file of a sniffed format: that demuxer, local file only. */
export function userMediaInput(file: string, format: AudioFormat): string[] {
  return ["-protocol_whitelist", "file", "-f", DEMUXER[format], "-i", file];
}

const MPEG_BITRATES = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG_RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** Length in bytes of the MPEG audio Layer III frame whose header starts at `o`; 0 when none starts there. */
function mp3FrameLength(h: Uint8Array, o: number): number {
  if (o + 4 > h.length || h[o] !== 0xff || (h[o + 1] & 0xe0) !== 0xe0) return 0;
  const version = (h[o + 1] >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
  const layer = (h[o + 1] >> 1) & 3; // 1: Layer III
  const bitrateIndex = h[o + 2] >> 4;
  const rateIndex = (h[o + 2] >> 2) & 3;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return 0;
  const bitrate = (version === 3 ? MPEG_BITRATES.v1 : MPEG_BITRATES.v2)[bitrateIndex] * 1000;
  const rate = MPEG_RATES[version][rateIndex];
  return Math.floor(((version === 3 ? 144 : 72) * bitrate) / rate) + ((h[o + 2] >> 1) & 1);
}

/** Length of the ADTS (AAC) frame whose header starts at `o`; 0 when none starts there. */
function adtsFrameLength(h: Uint8Array, o: number): number {
  if (o + 7 > h.length || h[o] !== 0xff || (h[o + 1] & 0xf6) !== 0xf0) return 0;
  if (((h[o + 2] >> 2) & 0x0f) > 12) return 0; // sampling frequency index
  const len = ((h[o + 3] & 0x03) << 11) | (h[o + 4] << 3) | (h[o + 5] >> 5);
  return len >= 7 ? len : 0;
}

/**
 * A real stream of frames at `o`: a valid frame header, and a valid next one right where the first
 * frame ends (one frame-like header is not enough: text after a 0xFF byte can look like one). Frames
 * are at most a few KiB, so both lie within the bytes sniffed.
 */
function framesAt(h: Uint8Array, o: number, frameLength: (h: Uint8Array, o: number) => number): boolean {
  const len = frameLength(h, o);
  return len > 0 && frameLength(h, o + len) > 0;
}

/** ftyp brands of the MP4/QuickTime family: audio (M4A/M4B), phone and camera video (.mp4, .mov, 3GP). */
const MP4_BRANDS = new Set([
  ...["M4A ", "M4B ", "M4V ", "M4VP", "mp42", "mp41", "mp71", "isom", "iso2", "iso4", "iso5", "iso6", "avc1"],
  ...["dash", "3gp4", "3gp5", "3gp6", "3g2a", "MSNV", "qt  ", "f4v ", "XAVC"],
]);

/** Bytes an ID3v2 tag at the start takes (header, body and footer); 0 without one. */
function id3TagLength(head: Uint8Array): number {
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return 0;
  const size = ((head[6] & 0x7f) << 21) | ((head[7] & 0x7f) << 14) | ((head[8] & 0x7f) << 7) | (head[9] & 0x7f);
  return 10 + size + (head[5] & 0x10 ? 10 : 0);
}

/**
 * Recognises the accepted containers from their first bytes (never from the name): MP3 (MPEG-1/2
 * Layer III frames), WAV (RIFF/WAVE), Ogg, FLAC, AAC in ADTS frames, the MP4/QuickTime family (ftyp
 * box: M4A, phone and camera video) and WebM/Matroska (EBML header).
 * After an ID3 tag, `head` must be what follows the tag (sniffAudioFile reads it): an ID3 tag
 * followed by anything but real frames (a playlist, say) is no audio.
 */
export function sniffAudioFormat(head: Uint8Array, afterTag = false): AudioFormat | null {
  const ascii = (o: number, n: number) => String.fromCharCode(...head.subarray(o, o + n));
  if (!afterTag) {
    if (head.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 4) === "WAVE") return "wav";
    if (head.length >= 4 && ascii(0, 4) === "OggS") return "ogg";
    if (head.length >= 12 && ascii(4, 4) === "ftyp") {
      return MP4_BRANDS.has(ascii(8, 4)) ? "m4a" : null;
    }
    // EBML header: WebM or Matroska (the matroska demuxer reads both).
    if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return "webm";
    const tag = id3TagLength(head);
    if (tag > 0) return tag + 4 <= head.length ? sniffAudioFormat(head.subarray(tag), true) : null;
  }
  if (head.length >= 4 && ascii(0, 4) === "fLaC") return "flac";
  // Encoders may pad between the tag and the first frame.
  let o = 0;
  if (afterTag) while (o < head.length && o < 2048 && head[o] === 0) o++;
  if (framesAt(head, o, adtsFrameLength)) return "aac";
  if (framesAt(head, o, mp3FrameLength)) return "mp3";
  return null;
}

/**
 * sniffAudioFormat for a file on disk whose first bytes are `head`: after an ID3 tag longer than
 * `head` (cover art), the bytes that follow the tag are read from the file.
 */
export async function sniffAudioFile(file: string, head: Uint8Array): Promise<AudioFormat | null> {
  const tag = id3TagLength(head);
  if (tag === 0 || tag + 4 <= head.length) return sniffAudioFormat(head);
  const fh = await open(file, "r");
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await fh.read(buf, 0, buf.length, tag);
    return sniffAudioFormat(buf.subarray(0, bytesRead), true);
  } finally {
    await fh.close();
  }
}

export interface ProbeResult {
  /**
   * The length of the chosen audio stream (its own duration, not the container header's); 0 when the
   * file does not say, as in a browser's MediaRecorder WebM: then only the bounded decode measures it.
   */
  durationSeconds: number;
  /** The chosen audio stream, 0-based among the file's audio streams (`-map 0:a:N`). */
  stream: number;
  /** How many audio streams the file has. */
  audioStreams: number;
}

interface ProbedStream {
  codec_type?: string;
  duration?: string;
  tags?: { DURATION?: string };
}

/** A stream's own length: `duration`, else Matroska's DURATION tag (hh:mm:ss.frac); NaN when neither. */
function streamSeconds(s: ProbedStream): number {
  const d = Number(s.duration);
  if (Number.isFinite(d)) return d;
  const m = /^(\d+):(\d+):(\d+(?:\.\d+)?)$/.exec(s.tags?.DURATION ?? "");
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : Number.NaN;
}

/**
 * ffprobe with the sniffed demuxer: the audio streams and their lengths. With several audio streams
 * the longest is chosen (a file cannot have a short stream charged and a long one transcribed: the
 * chosen one is the one decoded, measured and charged). Null when there is no audio ffprobe can read.
 */
export async function probeAudio(file: string, format: AudioFormat): Promise<ProbeResult | null> {
  try {
    const { stdout } = await run(
      ffprobePath(),
      [
        "-v",
        "error",
        "-show_entries",
        "format=duration:stream=codec_type,duration:stream_tags=DURATION",
        "-of",
        "json",
        ...userMediaInput(file, format),
      ],
      { timeout: 30_000 },
    );
    const j = JSON.parse(stdout) as { format?: { duration?: string }; streams?: ProbedStream[] };
    const audio = (j.streams ?? []).filter((s) => s.codec_type === "audio");
    if (audio.length === 0) return null;
    const lengths = audio.map(streamSeconds);
    let stream = 0;
    lengths.forEach((len, i) => {
      if (len > (lengths[stream] || 0)) stream = i;
    });
    // One stream with no length of its own (raw ADTS, some WAVs): the container's is that stream's.
    const own = lengths[stream];
    const duration = Number.isFinite(own) ? own : audio.length === 1 ? Number(j.format?.duration) : 0;
    return {
      durationSeconds: Number.isFinite(duration) ? duration : 0,
      stream,
      audioStreams: audio.length,
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
 * Decodes the chosen audio stream to nothing and measures what really decodes: catches files whose
 * header promises audio but whose data is missing or broken. Returns the decoded duration in seconds.
 * `maxSeconds` stops the decode there (a file longer than the quota needs no more than that read).
 */
export async function decodedSeconds(
  file: string,
  format: AudioFormat,
  stream: number,
  maxSeconds?: number,
): Promise<number> {
  const limit = maxSeconds !== undefined && Number.isFinite(maxSeconds) ? ["-t", String(Math.max(1, maxSeconds))] : [];
  try {
    const { stderr } = await run(
      ffmpegPath(),
      [
        ...["-hide_banner", "-nostats", "-v", "info", ...limit],
        ...userMediaInput(file, format),
        ...["-map", `0:a:${stream}`, "-f", "null", "-"],
      ],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    return lastProgressSeconds(stderr);
  } catch {
    return 0;
  }
}
