import { AppError } from "@kikitori/shared";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { IdTokenClaims, TokenSigner } from "./tokens.ts";

declare module "fastify" {
  interface FastifyRequest {
    auth: IdTokenClaims | null;
  }
}

export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  return m ? m[1] : null;
}

/** onRequest hook (so a missing token is a 401 before the body is read or validated): requires a valid ID token and puts its claims on `request.auth`. */
export function requireAuth(signer: TokenSigner) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const token = bearerToken(req);
    if (!token) throw new AppError("UNAUTHENTICATED", "An ID token is required (Authorization: Bearer …)");
    req.auth = await signer.verify(token);
    req.log = req.log.child({ uid: req.auth.sub });
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
