import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * Checks an AWS Signature Version 4 `Authorization` header (what the `minio` client and every S3 SDK
 * send) against one access key and secret. The embedded object store (s3rver) accepts any V4
 * signature and anonymous requests; it sits behind this check, so only holders of the secret get in.
 *
 * Only header signatures are accepted (no presigned URLs, no V2): the services use nothing else.
 * The payload hash is taken as signed (`x-amz-content-sha256`), not recomputed from the body.
 */
export interface SigV4Request {
  method: string;
  /** The request target as sent: path and query string. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface SigV4Credentials {
  accessKey: string;
  secretKey: string;
}

/** Why a request was refused, in S3's own error codes; null when it is correctly signed. */
export type SigV4Refusal = { code: "AccessDenied" | "InvalidAccessKeyId" | "SignatureDoesNotMatch"; message: string };

/** How far x-amz-date may be from the server's clock (as S3 itself: 15 minutes). */
export const SIGV4_MAX_SKEW_MS = 15 * 60_000;

const AUTH_RE =
  /^AWS4-HMAC-SHA256\s+Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;_-]+),\s*Signature=([0-9a-f]{64})$/;

const header = (h: SigV4Request["headers"], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v.join(",") : v;
};

/** `20250102T030405Z` → epoch ms, or NaN. */
function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return Number.NaN;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

/** The canonical query string: every `name=value` pair (already URI-encoded as sent), sorted. */
function canonicalQuery(query: string): string {
  if (!query) return "";
  return query
    .split("&")
    .filter(Boolean)
    .map((p) => (p.includes("=") ? p : `${p}=`))
    .sort((a, b) => {
      const [ka, va] = a.split("=", 2);
      const [kb, vb] = b.split("=", 2);
      return ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0;
    })
    .join("&");
}

const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data, "utf8").digest();
const sha256Hex = (data: string) => createHash("sha256").update(data, "utf8").digest("hex");

export function verifySigV4(req: SigV4Request, creds: SigV4Credentials, now = Date.now()): SigV4Refusal | null {
  const auth = header(req.headers, "authorization");
  if (!auth) return { code: "AccessDenied", message: "Anonymous access is not allowed" };
  const m = AUTH_RE.exec(auth.trim());
  if (!m) return { code: "AccessDenied", message: "Only AWS Signature Version 4 header authentication is accepted" };
  const [, accessKey, scopeDate, region, service, signedHeadersList, signature] = m;
  if (!safeEqual(accessKey, creds.accessKey)) {
    return { code: "InvalidAccessKeyId", message: "The access key does not exist" };
  }
  const amzDate = header(req.headers, "x-amz-date") ?? "";
  const at = parseAmzDate(amzDate);
  if (!Number.isFinite(at) || amzDate.slice(0, 8) !== scopeDate) {
    return { code: "AccessDenied", message: "A valid x-amz-date matching the credential scope is required" };
  }
  if (Math.abs(now - at) > SIGV4_MAX_SKEW_MS) {
    return { code: "AccessDenied", message: "The request time is too far from the server's time" };
  }
  const payloadHash = header(req.headers, "x-amz-content-sha256");
  const signedHeaders = signedHeadersList.split(";");
  if (!payloadHash || !signedHeaders.includes("host") || !signedHeaders.includes("x-amz-date")) {
    return { code: "AccessDenied", message: "host, x-amz-date and x-amz-content-sha256 must be signed" };
  }
  const q = req.url.indexOf("?");
  const path = q === -1 ? req.url : req.url.slice(0, q);
  const query = q === -1 ? "" : req.url.slice(q + 1);
  const canonicalHeaders = signedHeaders
    .map((h) => `${h}:${(header(req.headers, h) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonicalRequest = [
    req.method.toUpperCase(),
    path || "/",
    canonicalQuery(query),
    canonicalHeaders,
    signedHeadersList,
    payloadHash,
  ].join("\n");
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretKey}`, scopeDate), region), service), "aws4_request");
  const expected = createHmac("sha256", key).update(stringToSign, "utf8").digest("hex");
  if (!safeEqual(expected, signature)) {
    return { code: "SignatureDoesNotMatch", message: "The request signature does not match" };
  }
  return null;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
