import { errorBodySchema } from "@kikitori/shared";
import { toHttpAppError } from "@kikitori/shared/server";
import type { FastifyInstance } from "fastify";

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
