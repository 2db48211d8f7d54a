import { z } from "zod";

/**
 * Every stable error code the API can answer with. The web app maps each to the translation key
 * `errors.<CODE>`; the English `message` in a response is for scripts and logs.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  PAYLOAD_TOO_LARGE: 413,
  /** The body ended before it was complete (a client gone mid-upload, multipart without its end). */
  REQUEST_INCOMPLETE: 400,
  /** The body stalled or took longer than allowed to arrive (uploads: UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_TIMEOUT_MS). */
  REQUEST_TIMEOUT: 408,
  /** A Range header outside the file (GET /api/audio). */
  RANGE_NOT_SATISFIABLE: 416,
  /** Request headers over Node's limit. */
  HEADERS_TOO_LARGE: 431,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNAUTHENTICATED: 401,
  TOKEN_EXPIRED: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_REFRESH_TOKEN: 401,
  EMAIL_NOT_VERIFIED: 403,
  UID_MISMATCH: 403,
  /** The account page's password check (not 401: the session itself is fine). */
  PASSWORD_INCORRECT: 403,
  FORBIDDEN: 403,
  EMAIL_ALREADY_IN_USE: 409,
  INVALID_TOKEN: 400,
  TOKEN_USED: 400,
  EMAIL_TOKEN_EXPIRED: 400,
  WEAK_PASSWORD: 400,
  NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 402,
  FILE_TOO_LARGE: 413,
  UNSUPPORTED_AUDIO: 415,
  /** Recognised as a recording of an accepted format, but it does not decode (cut short, damaged). */
  AUDIO_DAMAGED: 422,
  FILE_MISSING: 400,
  FILE_EMPTY: 400,
  TRANSCRIPTION_LANGUAGE_UNSUPPORTED: 422,
  NO_SPEECH: 422,
  TRANSCRIPTION_FAILED: 500,
  CORRECTION_FAILED: 500,
  AUDIO_EXPIRED: 410,
  /** The job has not reached the step the request needs (e.g. speakers before the interview text is written). */
  JOB_NOT_READY: 409,
  /** An edit based on an older version of the job (changed meanwhile, e.g. in another tab). */
  VERSION_CONFLICT: 409,
  /** A job has as many live share links as allowed (SHARES_PER_JOB_MAX): revoke one first. */
  SHARE_LIMIT_REACHED: 409,
  /** A job keeps as many quotes as allowed (QUOTES_PER_JOB_MAX): delete one first. */
  QUOTE_LIMIT_REACHED: 409,
  // Summary and title/heading tools (checkSummaryRequest, checkTitlesRequest in text.ts): one code per rule.
  TEXT_BLANK: 400,
  TEXT_TOO_LONG: 400,
  DESIRED_LENGTH_OUT_OF_RANGE: 400,
  DESIRED_LENGTH_TOO_LONG: 400,
  REQUIRED_PHRASES_MISSING: 400,
  REQUIRED_PHRASES_TOO_MANY: 400,
  REQUIRED_PHRASE_TOO_LONG: 400,
  REQUIRED_PHRASES_EXCEED_LENGTH: 400,
  COUNT_TOO_LOW: 400,
  COUNT_TOO_HIGH: 400,
  CUSTOM_PROMPT_TOO_LONG: 400,
  GENERATION_FAILED: 502,
  GENERATION_TIMEOUT: 504,
  // Plans and payments (docs/decisions/0006-billing.md).
  SAME_PLAN: 409,
  CARD_REQUIRED: 400,
  PAYMENT_METHOD_INVALID: 400,
  CARD_NUMBER_INVALID: 400,
  CARD_EXPIRY_INVALID: 400,
  CARD_CVC_INVALID: 400,
  PAYMENT_DECLINED: 402,
  PAYMENT_FAILED: 402,
  PAYMENT_AUTHENTICATION_FAILED: 402,
  PAYMENT_IN_PROGRESS: 409,
  /** The charge differs from the amount the user confirmed (the period or prices moved): nothing charged. */
  PRICE_CHANGED: 409,
  PAYMENT_NOT_FOUND: 404,
  PAYMENT_PROVIDER_ERROR: 502,
  WEBHOOK_SIGNATURE_INVALID: 400,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const errorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

/** The one error shape of the API contract. */
export const errorBodySchema = z.object({
  error: z.object({
    code: errorCodeSchema,
    message: z.string(),
    link: z.string().optional(),
    details: z.unknown().optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The single error type of every service: a stable code, an HTTP status, an English message. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly link?: string;
  readonly details?: unknown;
  /** False for errors that a job must not retry (bad input, not a passing fault). */
  readonly retryable: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { link?: string; details?: unknown; status?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    this.status = opts.status ?? ERROR_CODES[code];
    this.link = opts.link;
    this.details = opts.details;
    this.retryable = opts.retryable ?? this.status >= 500;
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.link ? { link: this.link } : {}),
        ...(this.details !== undefined ? { details: this.details } : {}),
      },
    };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
