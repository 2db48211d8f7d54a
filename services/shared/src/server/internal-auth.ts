import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Service-to-service calls (gateway → billing): the caller sends the user's uid in
 * `x-kikitori-uid` and a shared secret in `x-internal-token` (docs/decisions/0006-billing.md).
 */
export const INTERNAL_UID_HEADER = "x-kikitori-uid";
export const INTERNAL_TOKEN_HEADER = "x-internal-token";

/** Without INTERNAL_TOKEN both sides derive the same token from the shared JWT secret. */
export function deriveInternalToken(jwtSecret: string): string {
  return createHmac("sha256", jwtSecret).update("kikitori-internal-token-v1").digest("base64url");
}

export function internalTokenMatches(expected: string, given: string | string[] | undefined): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
