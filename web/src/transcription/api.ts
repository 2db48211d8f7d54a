/** The transcription calls of the API contract. */
import {
  type ExportFormat,
  type ExportText,
  type RenameSpeakers,
  type SpeechStatus,
  speechStatusSchema,
  type TranscriptionSnapshot,
  transcriptionListSchema,
  transcriptionSnapshotSchema,
  uploadResponseSchema,
} from "@kikitori/shared";
import { type AnswerParser, apiFetchParsed, bySchema } from "../api/client.ts";
import { ApiError, toApiError } from "../api/errors.ts";
import { sessionManager } from "../auth/session-instance.ts";
import { isSameOrigin, recentJobs } from "./form.ts";
import { uploadResumable } from "./resumable.ts";
import { isResumable } from "./resumableRules.ts";

/** Uploading 20 MB on a slow line takes longer than the default 30 s time-out. */
const UPLOAD_TIMEOUT_MS = 10 * 60_000;

/**
 * POST /api/upload (multipart) → 202 {message, jobId}, or for a file over 20 MiB the resumable upload
 * (resumable.ts) → the same. Rejects with ApiError. `language` is the audio
 * language ("auto" or a Whisper code), `uiLanguage` the interface language (links in errors and e-mails).
 */
export async function uploadAudio(
  file: File,
  fields: {
    interviewer: string;
    interviewee: string;
    tone: string;
    interviewExample: string;
    model: string;
    /** "auto" or "1"…"6". */
    speakers: string;
    /** Names and terms, one per line; blank: the account's glossary. */
    glossary?: string;
  },
  meta: { uid: string; language: string; uiLanguage: string },
  signal?: AbortSignal,
  onProgress?: (sent: number, total: number, reconnecting?: boolean) => void,
): Promise<{ message: string; jobId: string }> {
  const record: Record<string, string> = {
    interviewer: fields.interviewer.trim(),
    interviewee: fields.interviewee.trim(),
    tone: fields.tone,
    interviewExample: fields.interviewExample,
    model: fields.model,
    speakers: fields.speakers,
    uid: meta.uid,
    language: meta.language,
    uiLanguage: meta.uiLanguage,
    ...(fields.glossary?.trim() ? { glossary: fields.glossary } : {}),
  };
  // Over 20 MiB (the plan allowing), resumably: progress, retries and resuming after a lost connection.
  if (isResumable(file.size)) {
    const jobId = await uploadResumable(file, record, signal ?? new AbortController().signal, (p) =>
      onProgress?.(p.sent, p.total, p.reconnecting),
    );
    return { message: "File uploaded", jobId };
  }
  const form = new FormData();
  form.append("file", file, file.name);
  for (const [name, value] of Object.entries(record)) form.append(name, value);
  return apiFetchParsed("/api/upload", bySchema(uploadResponseSchema), "Unexpected upload answer", {
    method: "POST",
    body: form,
    signal,
    timeoutMs: UPLOAD_TIMEOUT_MS,
    okStatus: 202,
    onUploadProgress: onProgress,
  });
}

/** GET /api/transcriptions/{jobId}: the job's snapshot. */
export async function getSnapshot(jobId: string, signal?: AbortSignal): Promise<TranscriptionSnapshot> {
  const parse: AnswerParser<TranscriptionSnapshot> = (raw) => {
    const r = transcriptionSnapshotSchema.safeParse(raw);
    if (!r.success) console.error("Unexpected transcription snapshot", r.error);
    return r.success ? r.data : null;
  };
  return apiFetchParsed(
    `/api/transcriptions/${encodeURIComponent(jobId)}`,
    parse,
    "Unexpected transcription snapshot",
    {
      signal,
    },
  );
}

/** GET /api/speech (no login needed): which speech engine runs and which audio languages it takes. */
export async function getSpeechStatus(signal?: AbortSignal): Promise<SpeechStatus> {
  return apiFetchParsed("/api/speech", bySchema(speechStatusSchema), "Unexpected speech status", {
    auth: false,
    signal,
  });
}

/** GET /api/transcriptions: the user's jobs, newest first, at most 10. */
export async function listRecent(signal?: AbortSignal): Promise<TranscriptionSnapshot[]> {
  const { jobs } = await apiFetchParsed(
    "/api/transcriptions",
    bySchema(transcriptionListSchema),
    "Unexpected transcription list",
    { signal },
  );
  return recentJobs(jobs);
}

export async function readError(res: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  return toApiError(res.status, body);
}

/**
 * Fetches the stored audio with the bearer token and returns it as a Blob (the player gets a Blob URL).
 * Rejects with ApiError: AUDIO_EXPIRED (410) after the retention period. Only same-origin URLs get the
 * token; any other URL is not fetched here.
 */
export async function fetchAudio(url: string, signal?: AbortSignal): Promise<Blob> {
  if (!isSameOrigin(url, window.location.origin)) throw new ApiError("FORBIDDEN", 0, "Audio URL is not same-origin");
  const res = await fetchWithSession(url, signal);
  if (!res.ok) {
    const err = await readError(res);
    // 410 means expired even if the body is not the contract's shape.
    if (res.status === 410) throw new ApiError("AUDIO_EXPIRED", 410, err.message);
    throw err;
  }
  return res.blob();
}

/** A GET with the bearer token, refreshed once on a 401 (for files: audio, exports). */
export async function fetchWithSession(url: string, signal?: AbortSignal): Promise<Response> {
  const get = async (token: string | null) => {
    try {
      return await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {}, signal });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new ApiError("NETWORK_ERROR", 0, e instanceof Error ? e.message : "Network error");
    }
  };
  const token = await sessionManager.getValidIdToken();
  let res = await get(token);
  if (res.status === 401 && token) {
    const fresh = await sessionManager.refreshNow().catch(() => null);
    if (fresh) res = await get(fresh.idToken);
  }
  return res;
}

/** The file name of a Content-Disposition header (RFC 5987 `filename*` first). */
export function dispositionFileName(header: string | null, fallback: string): string {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header ?? "");
  if (star) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      // fall through
    }
  }
  return /filename="([^"]+)"/i.exec(header ?? "")?.[1] ?? fallback;
}

/** GET /api/transcriptions/{jobId}/export → the file (Blob) and its name. */
export async function fetchExport(
  jobId: string,
  format: ExportFormat,
  text: ExportText,
): Promise<{ blob: Blob; fileName: string }> {
  const res = await fetchWithSession(
    `/api/transcriptions/${encodeURIComponent(jobId)}/export?format=${format}&text=${text}`,
  );
  if (!res.ok) throw await readError(res);
  return {
    blob: await res.blob(),
    fileName: dispositionFileName(res.headers.get("content-disposition"), `export.${format}`),
  };
}

/** PATCH /api/transcriptions/{jobId}/speakers: rename speakers or swap the two roles → the new snapshot. */
export async function renameSpeakers(jobId: string, body: RenameSpeakers): Promise<TranscriptionSnapshot> {
  return apiFetchParsed(
    `/api/transcriptions/${encodeURIComponent(jobId)}/speakers`,
    bySchema(transcriptionSnapshotSchema),
    "Unexpected transcription snapshot",
    { method: "PATCH", body },
  );
}

/** POST /api/transcriptions/{jobId}/retry: a failed job runs again from where it stopped → its snapshot. */
export async function retryJob(jobId: string): Promise<TranscriptionSnapshot> {
  return apiFetchParsed(
    `/api/transcriptions/${encodeURIComponent(jobId)}/retry`,
    bySchema(transcriptionSnapshotSchema),
    "Unexpected transcription snapshot",
    { method: "POST", okStatus: 202 },
  );
}
