import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { AppError } from "@kikitori/shared";
import { SignJWT } from "jose";
import type { TokenRevocations } from "./revocation.ts";

export interface IdTokenClaims {
  sub: string;
  email: string;
  email_verified: boolean;
  /** The login (refresh-token family) the token belongs to; logout ends it. */
  sid?: string;
  /** When the token stops working (ms since the epoch); set by verify(). A socket closes then. */
  expiresAtMs?: number;
}

/** A token whose signature and claims hold (its login not checked yet): what assertLive needs. */
export interface SignedToken {
  claims: IdTokenClaims;
  /** When it was issued (ms): a password reset ends the tokens issued before it. */
  issuedAtMs: number;
}

const ISSUER = "kikitori";
const AUDIENCE = "kikitori-api";

/** Short-lived HS256 JWTs (the ID token of the contract). */
export class TokenSigner {
  private readonly key: Uint8Array;
  constructor(
    secret: string,
    readonly idTokenTtlSeconds: number,
    /** When given, verify() also refuses tokens whose login ended (logout, password reset). */
    private readonly revocations?: TokenRevocations,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(claims: IdTokenClaims, now = Date.now()): Promise<string> {
    const iat = Math.floor(now / 1000);
    return new SignJWT({
      email: claims.email,
      email_verified: claims.email_verified,
      iat_ms: now,
      ...(claims.sid ? { sid: claims.sid } : {}),
    })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(claims.sub)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.idTokenTtlSeconds)
      .sign(this.key);
  }

  /**
   * The token's claims when its signature and claims hold (verifySignature) and its login has not
   * ended (the revocation check: one Redis read).
   */
  async verify(token: string): Promise<IdTokenClaims> {
    const signed = this.verifySignature(token);
    await this.assertLive(signed);
    return signed.claims;
  }

  /**
   * The token's signature and claims, checked synchronously (no I/O; see verifyHs256): what a route
   * that checks the login while its body arrives (assertLive) needs first. Throws 401.
   */
  verifySignature(token: string): SignedToken {
    const payload = verifyHs256(token, this.key, Math.floor(Date.now() / 1000));
    if (typeof payload.sub !== "string") throw new AppError("UNAUTHENTICATED", "Token has no subject");
    const sid = typeof payload.sid === "string" ? payload.sid : undefined;
    return {
      claims: {
        sub: payload.sub,
        email: String(payload.email ?? ""),
        email_verified: payload.email_verified === true,
        ...(sid ? { sid } : {}),
        ...(typeof payload.exp === "number" ? { expiresAtMs: payload.exp * 1000 } : {}),
      },
      // verifyHs256 let `iat` through only as a number or absent.
      issuedAtMs:
        typeof payload.iat_ms === "number" ? payload.iat_ms : ((payload.iat as number | undefined) ?? 0) * 1000,
    };
  }

  /** Rejects (401 TOKEN_EXPIRED) when the token's login ended (logout, password reset) before it expired. */
  async assertLive({ claims, issuedAtMs }: SignedToken): Promise<void> {
    if (this.revocations && (await this.revocations.isEnded({ sub: claims.sub, sid: claims.sid, issuedAtMs }))) {
      throw new AppError("TOKEN_EXPIRED", "The session has ended. Please log in again.");
    }
  }
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function jsonSegment(segment: string): Record<string, unknown> | null {
  if (!BASE64URL.test(segment)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Verifies an HS256 JWT (JWS compact form) synchronously with node:crypto, checking what jose's
 * jwtVerify does for our tokens (`algorithms: ["HS256"]`, issuer, audience): the header names HS256 and
 * no critical extension; the HMAC-SHA256 of `header.payload` equals the signature (compared in
 * constant time); the payload is a JSON object whose `iss` and `aud` are ours, `exp` is a number still
 * ahead of `nowSeconds`, `nbf` (when present) not ahead, `iat` (when present) a number. jose itself
 * verifies through WebCrypto, two asynchronous steps on the thread pool; on a busy gateway each waited
 * milliseconds for its turn before every authenticated request (docs/decisions/0035). Signing stays
 * with jose.
 */
export function verifyHs256(token: string, key: Uint8Array, nowSeconds: number): Record<string, unknown> {
  const invalid = () => new AppError("UNAUTHENTICATED", "Invalid ID token");
  const parts = token.split(".");
  if (parts.length !== 3) throw invalid();
  const [h, p, sig] = parts;
  const header = jsonSegment(h);
  if (header?.alg !== "HS256" || header.crit !== undefined || header.b64 !== undefined) throw invalid();
  if (!BASE64URL.test(sig)) throw invalid();
  const given = Buffer.from(sig, "base64url");
  const expected = createHmac("sha256", key).update(`${h}.${p}`).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  const payload = jsonSegment(p);
  if (!payload) throw invalid();
  const aud = payload.aud;
  if (payload.iss !== ISSUER || !(aud === AUDIENCE || (Array.isArray(aud) && aud.includes(AUDIENCE)))) throw invalid();
  if (payload.iat !== undefined && typeof payload.iat !== "number") throw invalid();
  if (payload.nbf !== undefined && (typeof payload.nbf !== "number" || payload.nbf > nowSeconds)) throw invalid();
  if (typeof payload.exp !== "number") throw invalid();
  if (payload.exp <= nowSeconds) throw new AppError("TOKEN_EXPIRED", "The ID token has expired");
  return payload;
}

/** Opaque random tokens for e-mail links and refresh tokens; only their SHA-256 is stored. */
export function newOpaqueToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
