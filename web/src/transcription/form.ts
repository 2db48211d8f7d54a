/** Pure rules of the transcription form and small display helpers. */
import {
  FILE_TYPES,
  type FileType,
  MAX_UPLOAD_BYTES,
  type TranscriptionSnapshot,
  UPLOAD_EXTENSIONS,
} from "@kikitori/shared";
import { formatAmount } from "../plan/format.ts";

/** The file picker's accept list: recordings, and videos (their sound is transcribed). */
export const AUDIO_ACCEPT = [...UPLOAD_EXTENSIONS.map((e) => `.${e}`), "audio/*", "video/*"].join(",");

export const ACTIVE_JOB_KEY = "kikitori.activeJob";
export const RECENT_LIMIT = 10;

export interface FileLike {
  name: string;
  size: number;
  type: string;
}

export type FileProblem = "tooLarge" | "unsupported";

function extensionOf(name: string): string {
  const i = name.lastIndexOf(".");
  return i >= 0 ? name.slice(i + 1).toLowerCase() : "";
}

/**
 * Checks a picked or dropped file before it is accepted: over `maxBytes` (the plan's maxUploadBytes,
 * 20 MiB on the free plan and before the plan is known) is refused (size-limit message);
 * something that is neither an audio or video MIME type nor a known recording extension is refused
 * too (a drop bypasses the picker's accept list). The server checks the bytes anyway.
 */
export function checkFile(file: FileLike, maxBytes = MAX_UPLOAD_BYTES): FileProblem | null {
  if (file.size > maxBytes) return "tooLarge";
  const ext = extensionOf(file.name);
  const knownExt = (UPLOAD_EXTENSIONS as readonly string[]).includes(ext);
  const type = file.type.toLowerCase();
  if (!knownExt && !type.startsWith("audio/") && !type.startsWith("video/")) return "unsupported";
  return null;
}

export type SubmitProblem = "loginRequired" | "fileNotSelected" | "fileTypeRequired" | "languageUnsupported";

/**
 * The checks before an upload, in this order: logged in, a file, a file type; then an audio language the
 * speech engine takes (`languageRefused`, from GET /api/speech: the server would refuse it with 422).
 */
export function checkSubmit(input: {
  loggedIn: boolean;
  hasFile: boolean;
  model: string;
  languageRefused?: boolean;
}): SubmitProblem | null {
  if (!input.loggedIn) return "loginRequired";
  if (!input.hasFile) return "fileNotSelected";
  if (!isFileType(input.model)) return "fileTypeRequired";
  if (input.languageRefused) return "languageUnsupported";
  return null;
}

/**
 * The file type chosen when the form opens: the general conversation type, which fits an interview
 * (the API's default, "meeting", suits a meeting recorder, not an interview product:
 * docs/decisions/0018-first-use-and-account-page.md).
 */
export const DEFAULT_FILE_TYPE: FileType = "general";

export function isFileType(v: string): v is FileType {
  return (FILE_TYPES as readonly string[]).includes(v);
}

/** "3.4 MB" style size in the UI language (binary units, like the 20 MB limit). */
export function formatFileSize(bytes: number, locale: string): string {
  const units = ["B", "KB", "MB", "GB"] as const;
  let v = Math.max(0, bytes);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  let num: string;
  try {
    num = new Intl.NumberFormat(locale, { maximumFractionDigits: u === 0 ? 0 : 1 }).format(v);
  } catch {
    num = String(Math.round(v * 10) / 10);
  }
  return `${num} ${units[u]}`;
}

/** Seconds with at most one decimal, in the UI language. */
export function formatSeconds(seconds: number, locale: string): string {
  return formatAmount(seconds, locale, 1);
}

/**
 * Whether `url` points at the page's own origin: only then may the bearer token go with the request
 * (the audio is fetched with it into a Blob URL). Relative URLs are same-origin.
 */
export function isSameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url, origin).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}

/** The user's jobs for the "Recent transcriptions" list: newest first, at most 10. */
export function recentJobs(jobs: readonly TranscriptionSnapshot[], limit = RECENT_LIMIT): TranscriptionSnapshot[] {
  const time = (s: TranscriptionSnapshot) => {
    const t = Date.parse(s.createdAt);
    return Number.isNaN(t) ? 0 : t;
  };
  return [...jobs].sort((a, b) => time(b) - time(a)).slice(0, limit);
}

/**
 * The job a fresh screen follows on its own: the newest one still running (queued, transcribing or
 * correcting), e.g. started in another tab. Null when none runs.
 */
export function runningJob(jobs: readonly TranscriptionSnapshot[] | undefined): string | null {
  if (!jobs) return null;
  const running = recentJobs(
    jobs.filter((j) => j.status === "queued" || j.status === "transcribing" || j.status === "correcting"),
    1,
  );
  return running[0]?.jobId ?? null;
}

/** The job id kept across reloads (sessionStorage), tolerant of a storage that throws. */
export interface ActiveJobStore {
  get(): string | null;
  set(jobId: string): void;
  clear(): void;
}

export function activeJobStore(storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null): ActiveJobStore {
  return {
    get() {
      try {
        const v = storage?.getItem(ACTIVE_JOB_KEY) ?? null;
        return v && /^[\w-]{1,64}$/.test(v) ? v : null;
      } catch {
        return null;
      }
    },
    set(jobId) {
      try {
        storage?.setItem(ACTIVE_JOB_KEY, jobId);
      } catch {
        /* storage full or blocked: a reload just won't restore the job */
      }
    },
    clear() {
      try {
        storage?.removeItem(ACTIVE_JOB_KEY);
      } catch {
        /* ignore */
      }
    },
  };
}

/**
 * Which screen generation a uid change gives: logging out or switching user starts a fresh screen;
 * logging in from the visitor's screen (the in-page login dialog) keeps it, so the chosen file and the
 * form stay.
 */
export function nextScreen(
  prev: { uid: string | null; generation: number },
  uid: string | null,
): { uid: string | null; generation: number } {
  if (prev.uid === uid) return prev;
  return { uid, generation: prev.uid === null ? prev.generation : prev.generation + 1 };
}
