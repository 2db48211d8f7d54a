import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Browser hardening headers. ID tokens live in localStorage, so a script injected into a page could
 * read them: the Content-Security-Policy allows scripts from this origin only (and Stripe.js, loaded
 * only when the Stripe provider is in use), no plugins, no framing by other sites.
 * - every answer: X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer (reset and verify
 *   links carry their token in the URL);
 * - HTML pages: the CSP, frame-ancestors 'none' and X-Frame-Options: DENY;
 * - Strict-Transport-Security only when the request came over HTTPS (directly, or through a trusted
 *   proxy's X-Forwarded-Proto when TRUST_PROXY is set): HSTS sent over plain HTTP means nothing,
 *   and on a local http://localhost it would only get in the way.
 */
export function contentSecurityPolicy(publicUrl: string): string {
  const u = new URL(publicUrl);
  const ws = `${u.protocol === "https:" ? "wss" : "ws"}://${u.host}`;
  return [
    "default-src 'self'",
    "script-src 'self' https://js.stripe.com",
    // The static pages (terms, privacy, how-to-use) carry a <style> block; React sets style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${ws} https://api.stripe.com`,
    "frame-src https://js.stripe.com https://hooks.stripe.com",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
}

// No includeSubDomains: other hosts under the same domain may not serve HTTPS (an operator can add it at the proxy).
export const HSTS = "max-age=31536000";

export function securityHeadersHook(publicUrl: string) {
  const csp = contentSecurityPolicy(publicUrl);
  return async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
    if (req.protocol === "https") reply.header("strict-transport-security", HSTS);
    const type = String(reply.getHeader("content-type") ?? "");
    // Swagger UI (/api/docs) brings inline scripts of its own; it gets framing protection only.
    if (type.startsWith("text/html")) {
      if (!req.url.startsWith("/api/docs")) reply.header("content-security-policy", csp);
      else reply.header("content-security-policy", "frame-ancestors 'none'");
      reply.header("x-frame-options", "DENY");
    }
    return payload;
  };
}
