import { createHash, randomBytes } from "node:crypto";
import { AppError } from "@kikitori/shared";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
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

  async verify(token: string): Promise<IdTokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ["HS256"],
      });
      if (typeof payload.sub !== "string") throw new AppError("UNAUTHENTICATED", "Token has no subject");
      const sid = typeof payload.sid === "string" ? payload.sid : undefined;
      const issuedAtMs = typeof payload.iat_ms === "number" ? payload.iat_ms : (payload.iat ?? 0) * 1000;
      if (this.revocations && (await this.revocations.isEnded({ sub: payload.sub, sid, issuedAtMs }))) {
        throw new AppError("TOKEN_EXPIRED", "The session has ended. Please log in again.");
      }
      return {
        sub: payload.sub,
        email: String(payload.email ?? ""),
        email_verified: payload.email_verified === true,
        ...(sid ? { sid } : {}),
        ...(typeof payload.exp === "number" ? { expiresAtMs: payload.exp * 1000 } : {}),
      };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new AppError("TOKEN_EXPIRED", "The ID token has expired");
      if (err instanceof AppError) throw err;
      throw new AppError("UNAUTHENTICATED", "Invalid ID token");
    }
  }
}

/** Opaque random tokens for e-mail links and refresh tokens; only their SHA-256 is stored. */
export function newOpaqueToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
