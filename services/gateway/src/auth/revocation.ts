import { AppError } from "@kikitori/shared";
import type { Redis } from "@kikitori/shared/server";

/**
 * Ends ID tokens before they expire, without a database read per call: one Redis MGET of two small
 * keys, each kept only as long as an ID token can live.
 * - logout ends one login: its session id (the refresh-token family, claim `sid`) is marked ended;
 * - a password reset or change and account deletion end every login of the user: tokens issued
 *   before that moment (claim `iat_ms`) are refused.
 * A refused token answers 401 TOKEN_EXPIRED, so a client refreshes, which fails for an ended session.
 */
export class TokenRevocations {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly tokenTtlSeconds: number,
  ) {}

  private sidKey = (sid: string) => `${this.prefix}:idt:ended-session:${sid}`;
  private userKey = (uid: string) => `${this.prefix}:idt:not-before:${uid}`;

  async endSession(sid: string): Promise<void> {
    await this.redis.set(this.sidKey(sid), "1", "EX", this.tokenTtlSeconds + 60);
  }

  /** Every ID token of the user issued before `at` stops working. */
  async endAllSessions(uid: string, at = Date.now()): Promise<void> {
    await this.redis.set(this.userKey(uid), String(at), "EX", this.tokenTtlSeconds + 60);
  }

  async isEnded(claims: { sub: string; sid?: string; issuedAtMs: number }): Promise<boolean> {
    let ended: string | null;
    let notBefore: string | null;
    try {
      [ended, notBefore] = claims.sid
        ? await this.redis.mget(this.sidKey(claims.sid), this.userKey(claims.sub))
        : [null, await this.redis.get(this.userKey(claims.sub))];
    } catch (err) {
      // Fail closed: a token must not outlive its logout because Redis did not answer.
      throw new AppError("SERVICE_UNAVAILABLE", "Sign-in cannot be checked right now. Please try again.", {
        cause: err,
      });
    }
    return ended !== null || (notBefore !== null && claims.issuedAtMs < Number(notBefore));
  }
}
