import { AsyncLocalStorage } from "node:async_hooks";
import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger };

/** What every log line written inside a unit of work (a job, a request) carries. */
export interface LogContext {
  correlationId?: string;
}

const logContext = new AsyncLocalStorage<LogContext>();

/**
 * Runs `fn` with a log context: every line any logger of this process writes meanwhile (also from
 * code that only has the service's root logger) carries the context's `correlationId`.
 */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return logContext.run(ctx, fn);
}

/**
 * JSON logs (pino) to stdout (or `destination`). Every line carries the service name; request and job
 * loggers add `correlationId`, and so does any line written inside `withLogContext`.
 */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? "info",
  destination?: DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    // The correlation id of the current job, unless the line (or the child logger) names one itself.
    mixin(_obj, _level, logger) {
      const correlationId = logContext.getStore()?.correlationId;
      if (!correlationId || "correlationId" in logger.bindings()) return {};
      return { correlationId };
    },
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        "*.password",
        "*.token",
        "*.refreshToken",
        "*.idToken",
      ],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
