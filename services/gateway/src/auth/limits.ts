import { createHash } from "node:crypto";
import { AppError } from "@kikitori/shared";
import type { Redis } from "@kikitori/shared/server";

/**
 * Fixed-window limit per e-mail address (in addition to the per-IP limit of @fastify/rate-limit),
 * shared by every gateway through Redis. The address is hashed so it never sits in Redis in clear.
 */
export class EmailRateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly max: number,
    private readonly windowSeconds = 15 * 60,
  ) {}

  async hit(action: string, email: string): Promise<void> {
    const id = createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 32);
    const key = `${this.prefix}:rl:${action}:${id}`;
    const [[, count]] = (await this.redis.multi().incr(key).expire(key, this.windowSeconds, "NX").exec()) as [
      [Error | null, number],
      [Error | null, number],
    ];
    if (count > this.max) {
      const ttl = await this.redis.ttl(key);
      throw new AppError("RATE_LIMITED", "Too many attempts. Please wait and try again.", {
        details: { retryAfterSeconds: Math.max(ttl, 1) },
      });
    }
  }
}

export interface LoginThrottleLimits {
  /** Failures from one source (any account) in the window before that source is refused. */
  perSource: number;
  /** Failures for one account from one source in the window before that pair is refused. */
  perAccountSource: number;
  /** Failures for one account (any source) before its logins are slowed down. */
  slowdownAfter: number;
  /** The longest wait added to one login attempt. */
  maxDelayMs: number;
  windowSeconds?: number;
}

/**
 * Login lock-out resistance. Login attempts are counted per source address, per account and per
 * (account, source) pair, in Redis (shared by every gateway), over a 15-minute window:
 * - a source past `perSource` failures is refused (429) on every account: it blocks the guesser;
 * - one source past `perAccountSource` failures on one account is refused (429) for that account;
 * - an account past `slowdownAfter` failures from anywhere gets slower logins (a wait that doubles per
 *   failure, at most `maxDelayMs`) but is never refused: the right password from another source still
 *   logs in, so nobody can lock someone else out by sending wrong passwords for their address.
 * An attempt is counted before its password is checked, in one atomic step with the limit check
 * (`admit`), so parallel attempts cannot all pass the check before any of them is counted; an attempt
 * that turns out not to be a wrong password is taken back (`settle`).
 * Addresses are hashed so they never sit in Redis in clear.
 */
export class LoginThrottle {
  private readonly window: number;
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: LoginThrottleLimits,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.window = limits.windowSeconds ?? 15 * 60;
  }

  private keys(email: string, source: string) {
    const id = createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 32);
    const src = createHash("sha256").update(source).digest("hex").slice(0, 32);
    return {
      source: `${this.prefix}:login-fail:src:${src}`,
      pair: `${this.prefix}:login-fail:pair:${id}:${src}`,
      account: `${this.prefix}:login-fail:acct:${id}`,
    };
  }

  /** The wait added for an account with `failures` failures in the window. */
  delayFor(failures: number): number {
    const over = failures - this.limits.slowdownAfter;
    if (over <= 0) return 0;
    return Math.min(this.limits.maxDelayMs, 250 * 2 ** Math.min(over - 1, 16));
  }

  /**
   * Before checking a password: refuses a blocked source or pair (429), else counts the attempt (as a
   * failure until `settle` says otherwise) and slows a targeted account. Check and count are one
   * Redis script, so at most `perAccountSource` attempts of one source on one account get through.
   */
  async admit(email: string, source: string): Promise<void> {
    const k = this.keys(email, source);
    const [refused, ttl, account] = (await this.redis.eval(
      ADMIT_SCRIPT,
      3,
      k.source,
      k.pair,
      k.account,
      this.limits.perSource,
      this.limits.perAccountSource,
      this.window,
    )) as [number, number, number];
    if (refused) {
      const message =
        refused === 1
          ? "Too many failed logins from this address. Please wait."
          : "Too many failed logins for this account from this address. Please wait.";
      throw new AppError("RATE_LIMITED", message, { details: { retryAfterSeconds: Math.max(ttl, 1) } });
    }
    // The wait depends on the failures before this attempt.
    const delay = this.delayFor(account - 1);
    if (delay > 0) await this.sleep(delay);
  }

  /**
   * After the check. A wrong password stays counted. Any other outcome takes the attempt back; the
   * right password also lets this source's count on this account start again.
   */
  async settle(email: string, source: string, outcome: "wrong-password" | "right-password" | "other"): Promise<void> {
    if (outcome === "wrong-password") return;
    const k = this.keys(email, source);
    await this.redis.eval(SETTLE_SCRIPT, 3, k.source, k.pair, k.account, outcome === "right-password" ? 1 : 0);
  }
}

/**
 * KEYS: source, pair, account; ARGV: perSource, perAccountSource, window seconds.
 * Returns {0, 0, account count} when admitted (all three counted), {1|2, ttl, 0} when refused.
 */
const ADMIT_SCRIPT = `
local src = tonumber(redis.call('GET', KEYS[1]) or '0')
if src >= tonumber(ARGV[1]) then return {1, redis.call('TTL', KEYS[1]), 0} end
local pair = tonumber(redis.call('GET', KEYS[2]) or '0')
if pair >= tonumber(ARGV[2]) then return {2, redis.call('TTL', KEYS[2]), 0} end
local account = 0
for i = 1, 3 do
  local n = redis.call('INCR', KEYS[i])
  if redis.call('TTL', KEYS[i]) < 0 then redis.call('EXPIRE', KEYS[i], ARGV[3]) end
  if i == 3 then account = n end
end
return {0, 0, account}
`;

/** KEYS: source, pair, account; ARGV: 1 to clear the pair (right password). Takes one attempt back. */
const SETTLE_SCRIPT = `
for i = 1, 3 do
  if ARGV[1] == '1' and i == 2 then
    redis.call('DEL', KEYS[2])
  else
    local n = tonumber(redis.call('GET', KEYS[i]) or '0')
    if n <= 1 then redis.call('DEL', KEYS[i]) else redis.call('DECR', KEYS[i]) end
  end
end
return 1
`;
