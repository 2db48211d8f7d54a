import { AppError } from "@kikitori/shared";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { IdTokenClaims, TokenSigner } from "./tokens.ts";

declare module "fastify" {
  interface FastifyRequest {
    auth: IdTokenClaims | null;
    /** Set by requireSignedToken: settles once the token's login is known not to have ended. */
    authLive?: Promise<void>;
  }
}

export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  return m ? m[1] : null;
}

/** The request's bearer token; 401 without one. */
function requiredToken(req: FastifyRequest): string {
  const token = bearerToken(req);
  if (!token) throw new AppError("UNAUTHENTICATED", "An ID token is required (Authorization: Bearer …)");
  return token;
}

/** The verified claims on the request (and the user on its log lines). */
function admit(req: FastifyRequest, claims: IdTokenClaims): void {
  req.auth = claims;
  req.log = req.log.child({ uid: claims.sub });
}

/** onRequest hook (so a missing token is a 401 before the body is read or validated): requires a valid ID token and puts its claims on `request.auth`. */
export function requireAuth(signer: TokenSigner) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    admit(req, await signer.verify(requiredToken(req)));
  };
}

/**
 * onRequest hook of a route whose body is large (the single upload): the token's signature and claims
 * are checked at once, with no I/O (401 before the body is read), and its login (the revocation check,
 * a Redis read) while the body arrives: `request.authLive` rejects when it ended, and the handler must
 * await it (cutting the body when it rejects) before acting for the user.
 */
export function requireSignedToken(signer: TokenSigner) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const signed = signer.verifySignature(requiredToken(req));
    admit(req, signed.claims);
    req.authLive = signer.assertLive(signed);
    req.authLive.catch(() => undefined);
  };
}

/** The contract's rule: a uid in a query or body is accepted but must equal the token's subject. */
export function assertUid(req: FastifyRequest, uid: string | undefined | null): string {
  const sub = req.auth?.sub;
  if (!sub) throw new AppError("UNAUTHENTICATED", "An ID token is required");
  if (uid !== undefined && uid !== null && uid !== "" && uid !== sub) {
    throw new AppError("UID_MISMATCH", "The uid does not match the signed-in user");
  }
  return sub;
}
