/** Pure rules of the in-browser recorder: the container chosen, the file made of it, the level shown. */
import { MAX_UPLOAD_BYTES } from "@kikitori/shared";

/**
 * The recorder's container in order of preference: Opus in WebM (Chromium, Firefox), Opus in Ogg
 * (Firefox), AAC in MP4 (Safari, iOS), then whatever WebM the browser makes. The server reads all four.
 */
export const RECORDER_TYPES = ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/mp4", "audio/webm"] as const;

/** Speech needs little: 32 kbit/s Opus keeps a 20 MB upload open for about 85 minutes. */
export const RECORDER_BITS_PER_SECOND = 32_000;

/** How often the recorder hands over a chunk (kept in IndexedDB at once): a crash loses at most this much. */
export const CHUNK_MS = 1000;

/** The first supported recorder type, or null when the browser records none of them (then it picks). */
export function pickMimeType(isTypeSupported: (type: string) => boolean): string | null {
  for (const type of RECORDER_TYPES) {
    try {
      if (isTypeSupported(type)) return type;
    } catch {
      /* an old engine that throws on codecs= counts as "no" */
    }
  }
  return null;
}

/** The file extension for a recorder's MIME type ("audio/webm;codecs=opus" → "webm"). */
export function extensionFor(mimeType: string): string {
  const base = mimeType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (base === "audio/ogg") return "ogg";
  if (base === "audio/mp4" || base === "video/mp4") return "m4a";
  return "webm";
}

/** The MIME type a recording's File carries: the container only, without the codecs parameter. */
export function fileTypeFor(mimeType: string): string {
  const ext = extensionFor(mimeType);
  return ext === "ogg" ? "audio/ogg" : ext === "m4a" ? "audio/mp4" : "audio/webm";
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * The recording's file name, from its start in local time: "Recording 2026-11-25 14-03.webm";
 * with several parts (a recording resumed after a reload) "Recording 2026-11-25 14-03 (2).webm".
 * `label` is the translated word for "Recording"; characters a file system refuses are replaced.
 */
export function recordingFileName(label: string, startedAt: Date, mimeType: string, part?: number): string {
  const d = startedAt;
  const stamp = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}-${pad(d.getMinutes())}`;
  const suffix = part === undefined ? "" : ` (${part})`;
  const safe = label.replace(/[\\/:*?"<>|]/g, "-").trim() || "Recording";
  return `${safe} ${stamp}${suffix}.${extensionFor(mimeType)}`;
}

/**
 * The microphone level, 0…1, from an AnalyserNode's time-domain bytes (128 is silence): the RMS,
 * scaled so normal speech fills most of the meter.
 */
export function levelOf(samples: Uint8Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) {
    const v = (s - 128) / 128;
    sum += v * v;
  }
  const rms = Math.sqrt(sum / samples.length);
  return Math.min(1, rms * 3);
}

/** Room left below the upload limit for the last chunk and the container's end. */
const LIMIT_MARGIN = 256 * 1024;
/** Stop before the upload limit (the free plan's, or the user's plan's `maxUploadBytes`). */
export const RECORDING_BYTES_LIMIT = MAX_UPLOAD_BYTES - LIMIT_MARGIN;

export function nearLimit(bytes: number, maxUploadBytes = MAX_UPLOAD_BYTES): boolean {
  return bytes >= maxUploadBytes - LIMIT_MARGIN;
}

/** The length of one recorder session: time recorded minus time paused. */
export interface Part {
  /** 0-based session number. */
  index: number;
  durationMs: number;
}

/** The parts' total length in seconds (the elapsed time shown across sessions). */
export function totalSeconds(parts: readonly Pick<Part, "durationMs">[]): number {
  return parts.reduce((sum, p) => sum + p.durationMs, 0) / 1000;
}

/**
 * The elapsed recording time of a running session: the time since it started, less the pauses (a
 * running pause counts up to `now`).
 */
export function sessionElapsedMs(s: { startedAt: number; pausedMs: number; pausedAt: number | null }, now: number) {
  const paused = s.pausedMs + (s.pausedAt === null ? 0 : now - s.pausedAt);
  return Math.max(0, now - s.startedAt - paused);
}
