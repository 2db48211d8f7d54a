import promClient from "prom-client";
import { AppError, type ErrorCode } from "../errors.ts";

/** The parts of a Fastify error we read (kept structural, so this package needs no Fastify dependency). */
interface FrameworkError {
  code?: string;
  statusCode?: number;
  message: string;
  validation?: Array<{ instancePath?: string; message?: string }>;
  validationContext?: string;
}

const FRAMEWORK_CODES: Record<string, ErrorCode> = {
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

/**
 * Turns anything an HTTP handler throws into the contract's error (stable code, status, English
 * message): AppErrors as they are, schema validation failures as VALIDATION_FAILED with the paths,
 * known framework errors by code, other 4xx as VALIDATION_FAILED, the rest as INTERNAL.
 */
export function toHttpAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FrameworkError | undefined;
  if (fe?.code === "FST_ERR_VALIDATION" && Array.isArray(fe.validation)) {
    const details = fe.validation.map((v) => ({
      path: `${fe.validationContext ?? "body"}${(v.instancePath ?? "").replace(/\//g, ".")}`,
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
  if (fe?.code && FRAMEWORK_CODES[fe.code]) {
    const code = FRAMEWORK_CODES[fe.code];
    return new AppError(code, code === "MALFORMED_JSON" ? "The request body is not valid JSON" : fe.message);
  }
  if (fe?.statusCode === 429) return new AppError("RATE_LIMITED", "Too many requests. Please wait and try again.");
  if (fe?.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError("VALIDATION_FAILED", fe.message, { status: fe.statusCode });
  }
  return new AppError("INTERNAL", "An unexpected error occurred. Please try again.", { cause: err });
}

/** The parts of a Fastify app the latency histogram needs (structural, no Fastify dependency). */
interface HookableApp {
  addHook(
    name: "onResponse",
    hook: (
      req: { method: string; routeOptions: { url?: string } },
      reply: { statusCode: number; elapsedTime: number },
    ) => Promise<void>,
  ): unknown;
}

/** Records every response in `http_request_duration_seconds{method,route,status}` on `registry`. */
export function instrumentHttp(app: HookableApp, registry: import("prom-client").Registry): void {
  const httpDuration = new promClient.Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request latency",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook("onResponse", async (req, reply) => {
    httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? "unmatched", status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}
