/** The API's one error shape `{error:{code,message,link}}`, turned into a typed client error. Pure. */
import type { ErrorCode } from "@kikitori/shared";

/** Codes the client produces itself, besides the server's ErrorCode list. */
export type ClientErrorCode = "NETWORK_ERROR" | "TIMEOUT" | "HTTP_ERROR" | "BAD_RESPONSE";
export type ApiErrorCode = ErrorCode | ClientErrorCode;

export class ApiError extends Error {
  readonly code: ApiErrorCode | (string & {});
  readonly status: number;
  readonly link?: string;

  constructor(code: string, status: number, message: string, link?: string) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.link = link;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

/**
 * Builds an ApiError from a non-OK response's status and parsed body (or `undefined` when the body was
 * not JSON). Unknown shapes become HTTP_ERROR so the UI can show "server error: {status}".
 */
export function toApiError(status: number, body: unknown): ApiError {
  if (isRecord(body) && isRecord(body.error) && typeof body.error.code === "string" && body.error.code) {
    const { code, message, link } = body.error;
    return new ApiError(
      code,
      status,
      typeof message === "string" ? message : code,
      typeof link === "string" && link ? link : undefined,
    );
  }
  return new ApiError("HTTP_ERROR", status, `server error: ${status}`);
}
