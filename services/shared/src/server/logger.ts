import { type Logger, pino } from "pino";

export type { Logger };

/** JSON logs (pino). Every line carries the service name; request/job loggers add `correlationId`. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    name: service,
    level,
    base: { service },
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
  });
}
