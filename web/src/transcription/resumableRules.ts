/** The pure rules of resumable uploads (resumable.ts): which files take them, which failures are retried. */
import { MAX_UPLOAD_BYTES } from "@kikitori/shared";
import type { DetailedError } from "tus-js-client";
import { ApiError, toApiError } from "../api/errors.ts";

/** Files up to the single POST's limit take it (one request); larger ones go resumably. */
export const isResumable = (size: number) => size > MAX_UPLOAD_BYTES;

/**
 * Whether a failed tus request is worth another try: a network failure, a server error, an offset
 * conflict (409, the client asks for the offset again), a lock (423), a time-out (408) or a rate limit
 * (429); an expired token (401) is refreshed first. Other refusals (413, 415, 422, 402…) are final.
 */
export function shouldRetryStatus(status: number): boolean {
  if (status === 0 || status >= 500) return true;
  return [401, 408, 409, 423, 429].includes(status);
}

/** The API error in a failed tus request's answer (the contract's error shape), else a network error. */
export function tusError(err: Error | DetailedError): ApiError {
  const res = "originalResponse" in err ? err.originalResponse : null;
  if (!res) return new ApiError("NETWORK_ERROR", 0, err.message);
  let body: unknown;
  try {
    body = JSON.parse(res.getBody());
  } catch {
    body = undefined;
  }
  return toApiError(res.getStatus(), body);
}
