import { AppError, errorBodySchema } from "@kikitori/shared";
import { toHttpAppError } from "@kikitori/shared/server";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** OpenAPI response entries for the given error statuses, all in the contract's error shape. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorBodySchema> {
  return Object.fromEntries(statuses.map((s) => [s, errorBodySchema]));
}

// biome-ignore lint/suspicious/noExplicitAny: any server/type provider
export function installErrorHandler(app: FastifyInstance<any, any, any, any, any>): void {
  app.setErrorHandler((err, req, reply) => {
    const appErr = toHttpAppError(err);
    if (appErr.status >= 500) req.log.error({ err }, "request failed");
    else req.log.info({ code: appErr.code, status: appErr.status }, "request refused");
    if (appErr.code === "RATE_LIMITED") {
      const retry = (appErr.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      if (retry) reply.header("retry-after", String(retry));
    }
    return reply.status(appErr.status).send(appErr.toBody());
  });
}

/**
 * Errors Fastify's router meets before any route (a path part longer than any id, a URL that cannot
 * be decoded): in the contract's error shape, not Fastify's own.
 */
export function frameworkErrorHandler(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const appErr =
    err.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? new AppError("NOT_FOUND", "Nothing is at this address")
      : new AppError("VALIDATION_FAILED", "The address could not be read");
  void reply.status(appErr.status).send(appErr.toBody());
}

/**
 * Errors Node's HTTP parser meets before Fastify has a request (headers too large, a body cut short
 * by the client, garbage on the wire): answered on the raw socket, in the contract's error shape.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: import("node:net").Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [status, reason, appErr] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? ([
          431,
          "Request Header Fields Too Large",
          new AppError("HEADERS_TOO_LARGE", "The request headers are too large"),
        ] as const)
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ([408, "Request Timeout", new AppError("REQUEST_TIMEOUT", "The request took too long to arrive")] as const)
        : err.code === "HPE_INVALID_EOF_STATE"
          ? ([
              400,
              "Bad Request",
              new AppError("REQUEST_INCOMPLETE", "The request ended before its body was complete"),
            ] as const)
          : ([400, "Bad Request", new AppError("VALIDATION_FAILED", "The request could not be parsed")] as const);
  const body = JSON.stringify(appErr.toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
