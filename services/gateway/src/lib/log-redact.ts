import type { FastifyRequest } from "fastify";

/**
 * A URL as the logs may keep it: a share link's token (`/shared/{token}`, also its audio URL and its
 * `sig`) and a `token=` query value (e-mail links) become `[redacted]`. Share tokens are stored only
 * as hashes; a log line must not hold them in clear either.
 */
export function redactUrl(url: string): string {
  return url.replace(/\/shared\/[^/?#]+/g, "/shared/[redacted]").replace(/([?&](?:token|sig)=)[^&#]*/g, "$1[redacted]");
}

/** Fastify's request serializer (the "incoming request" lines) with the URL redacted. */
export const requestLogSerializers = {
  req: (req: FastifyRequest) => ({
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};
