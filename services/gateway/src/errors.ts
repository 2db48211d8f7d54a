import { AppError, type ErrorCode, errorBodySchema } from "@kikitori/shared";
import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";

/** OpenAPI response entries for the given error statuses, all in the contract's error shape. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorBodySchema> {
  return Object.fromEntries(statuses.map((s) => [s, errorBodySchema]));
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: "MALFORMED_JSON",
  FST_ERR_CTP_EMPTY_JSON_BODY: "MALFORMED_JSON",
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "VALIDATION_FAILED",
  FST_REQ_FILE_TOO_LARGE: "FILE_TOO_LARGE",
  FST_FILES_LIMIT: "VALIDATION_FAILED",
  FST_FIELDS_LIMIT: "VALIDATION_FAILED",
  FST_PARTS_LIMIT: "VALIDATION_FAILED",
  FST_INVALID_MULTIPART_CONTENT_TYPE: "VALIDATION_FAILED",
};

/** Turns anything thrown in a handler into the contract's error shape with a stable code. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const details = err.validation.map((v) => ({
      path: `${err.validationContext ?? "body"}${v.instancePath.replace(/\//g, ".")}`,
      message: v.message ?? "invalid",
    }));
    return new AppError(
      "VALIDATION_FAILED",
      `Invalid request: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`,
      {
        details,
      },
    );
  }
  const fe = err as FastifyError;
  if (fe?.code && FASTIFY_CODES[fe.code]) {
    const code = FASTIFY_CODES[fe.code];
    return new AppError(code, code === "MALFORMED_JSON" ? "The request body is not valid JSON" : fe.message);
  }
  if (fe?.statusCode === 429) return new AppError("RATE_LIMITED", "Too many requests. Please wait and try again.");
  if (fe?.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError("VALIDATION_FAILED", fe.message, { status: fe.statusCode });
  }
  return new AppError("INTERNAL", "An unexpected error occurred. Please try again.", { cause: err });
}

// biome-ignore lint/suspicious/noExplicitAny: any server/type provider
export function installErrorHandler(app: FastifyInstance<any, any, any, any, any>): void {
  app.setErrorHandler((err, req, reply) => {
    const appErr = toAppError(err);
    if (appErr.status >= 500) req.log.error({ err }, "request failed");
    else req.log.info({ code: appErr.code, status: appErr.status }, "request refused");
    if (appErr.code === "RATE_LIMITED") {
      const retry = (appErr.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      if (retry) reply.header("retry-after", String(retry));
    }
    return reply.status(appErr.status).send(appErr.toBody());
  });
}
