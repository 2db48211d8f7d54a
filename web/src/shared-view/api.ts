/** Share links: the owner's calls (make, list, revoke a job's links) and the public read of a link. */
import {
  type CreatedShare,
  type CreateShareInput,
  createdShareSchema,
  type SharedTranscription,
  type ShareList,
  sharedTranscriptionSchema,
  shareListSchema,
} from "@kikitori/shared";
import { apiFetch, apiFetchParsed, bySchema } from "../api/client.ts";

const shares = (jobId: string) => `/api/transcriptions/${encodeURIComponent(jobId)}/shares`;

/** POST /api/transcriptions/{jobId}/shares → the new link, with its token and URL (shown this once). */
export function createShare(jobId: string, body: CreateShareInput): Promise<CreatedShare> {
  return apiFetchParsed(shares(jobId), bySchema(createdShareSchema), "Unexpected share link", {
    method: "POST",
    body,
    okStatus: 201,
  });
}

/** GET /api/transcriptions/{jobId}/shares: the live links, newest first. */
export function listShares(jobId: string, signal?: AbortSignal): Promise<ShareList> {
  return apiFetchParsed(shares(jobId), bySchema(shareListSchema), "Unexpected share links", { signal });
}

/** DELETE …/shares/{shareId}: the link stops working at once. */
export async function revokeShare(jobId: string, shareId: string): Promise<void> {
  await apiFetch(`${shares(jobId)}/${encodeURIComponent(shareId)}`, { method: "DELETE" });
}

/** GET /api/shared/{token}, without the session's token (a link's reader need not be logged in). */
export function getShared(token: string, signal?: AbortSignal): Promise<SharedTranscription> {
  return apiFetchParsed(
    `/api/shared/${encodeURIComponent(token)}`,
    bySchema(sharedTranscriptionSchema),
    "Unexpected shared transcription",
    { signal, auth: false },
  );
}
