/**
 * Resumable uploads (tus 1.0.0 at /api/uploads) for recordings over the single POST's 20 MiB: the file
 * goes in PATCHes of RESUMABLE_CHUNK_BYTES, a lost connection is retried and the upload resumes from
 * the offset the server has (also after a reload: tus-js-client remembers the upload's URL for the
 * file), and the last byte makes the job.
 */
import { type ErrorCode, RESUMABLE_UPLOADS_PATH, type UploadStatus, uploadStatusSchema } from "@kikitori/shared";
import { Upload } from "tus-js-client";
import { apiFetchParsed, bySchema } from "../api/client.ts";
import { ApiError } from "../api/errors.ts";
import { sessionManager } from "../auth/session-instance.ts";
import { shouldRetryStatus, tusError } from "./resumableRules.ts";

/** Bytes per PATCH: a dropped connection costs at most this much again. */
export const RESUMABLE_CHUNK_BYTES = 16 * 1024 * 1024;

/** Waits between tries after a failed request: about three minutes in all before giving up. */
export const RETRY_DELAYS_MS = [0, 1_000, 3_000, 5_000, 10_000, 20_000, 30_000, 60_000, 60_000];

/** Polls GET /api/uploads/{id} until the complete upload has its job (or was refused). */
async function jobOf(uploadUrl: string, signal: AbortSignal): Promise<string> {
  for (let i = 0; ; i++) {
    const status: UploadStatus = await apiFetchParsed(uploadUrl, bySchema(uploadStatusSchema), "Unexpected upload", {
      signal,
    });
    if (status.jobId) return status.jobId;
    if (status.error) throw new ApiError(status.error.code as ErrorCode, 0, status.error.message);
    await new Promise((r) => setTimeout(r, Math.min(5_000, 500 * (i + 1))));
  }
}

const sameRecord = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

export interface ResumableProgress {
  /** Bytes the server has. */
  sent: number;
  total: number;
  /** True while a lost connection is being retried. */
  reconnecting: boolean;
}

/**
 * Uploads `file` with its form fields (sent as Upload-Metadata, with filename and filetype) and
 * resolves to the job id. Rejects with ApiError: the single POST's codes (FILE_TOO_LARGE with the plan's
 * limit, UNSUPPORTED_AUDIO, AUDIO_DAMAGED, QUOTA_EXCEEDED…), or NETWORK_ERROR once the retries are spent.
 */
export function uploadResumable(
  file: File,
  metadata: Record<string, string>,
  signal: AbortSignal,
  onProgress: (p: ResumableProgress) => void,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let reconnecting = false;
    const upload = new Upload(file, {
      endpoint: RESUMABLE_UPLOADS_PATH,
      chunkSize: RESUMABLE_CHUNK_BYTES,
      retryDelays: RETRY_DELAYS_MS,
      metadata: { ...metadata, filename: file.name, filetype: file.type || "application/octet-stream" },
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onBeforeRequest: async (req) => {
        const token = await sessionManager.getValidIdToken();
        if (token) req.setHeader("Authorization", `Bearer ${token}`);
      },
      onShouldRetry: (err) => {
        const status = err.originalResponse?.getStatus() ?? 0;
        if (!shouldRetryStatus(status)) return false;
        if (status === 401) void sessionManager.refreshNow().catch(() => null);
        reconnecting = true;
        return true;
      },
      onProgress: (sent, total) => onProgress({ sent, total, reconnecting }),
      onChunkComplete: (_size, sent, total) => {
        reconnecting = false;
        onProgress({ sent, total, reconnecting });
      },
      onSuccess: ({ lastResponse }) => {
        const jobId = lastResponse.getHeader("Upload-Job-Id");
        if (jobId) resolve(jobId);
        else if (upload.url) jobOf(upload.url, signal).then(resolve, reject);
        else reject(new ApiError("BAD_RESPONSE", 0, "The upload ended without its address"));
      },
      onError: (err) => reject(tusError(err)),
    });
    signal.addEventListener("abort", () => void upload.abort(), { once: true });
    // The same file with the same form, already partly sent (a reload, a closed tab), resumes where the
    // server has it.
    const sent = upload.options.metadata ?? {};
    void upload
      .findPreviousUploads()
      .then((previous) => {
        const same = previous.filter((p) => sameRecord(p.metadata, sent));
        const latest = same.sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0];
        if (latest) upload.resumeFromPreviousUpload(latest);
      })
      .catch(() => undefined)
      .finally(() => {
        if (!signal.aborted) upload.start();
      });
  });
}
