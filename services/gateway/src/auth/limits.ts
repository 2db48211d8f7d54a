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
 * Login lock-out resistance. Wrong passwords are counted per source address, per account and per
 * (account, source) pair, in Redis (shared by every gateway), over a 15-minute window:
 * - a source past `perSource` failures is refused (429) on every account: it blocks the guesser;
 * - one source past `perAccountSource` failures on one account is refused (429) for that account;
 * - an account past `slowdownAfter` failures from anywhere gets slower logins (a wait that doubles per
 *   failure, at most `maxDelayMs`) but is never refused: the right password from another source still
 *   logs in, so nobody can lock someone else out by sending wrong passwords for their address.
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

  /** Before checking a password: refuses a blocked source or pair (429), slows a targeted account. */
  async before(email: string, source: string): Promise<void> {
    const k = this.keys(email, source);
    const [src, pair, account] = (await this.redis.mget(k.source, k.pair, k.account)).map((v) => Number(v ?? 0));
    const refuse = async (key: string, message: string) => {
      const ttl = await this.redis.ttl(key);
      throw new AppError("RATE_LIMITED", message, { details: { retryAfterSeconds: Math.max(ttl, 1) } });
    };
    if (src >= this.limits.perSource) await refuse(k.source, "Too many failed logins from this address. Please wait.");
    if (pair >= this.limits.perAccountSource) {
      await refuse(k.pair, "Too many failed logins for this account from this address. Please wait.");
    }
    const delay = this.delayFor(account);
    if (delay > 0) await this.sleep(delay);
  }

  async failed(email: string, source: string): Promise<void> {
    const k = this.keys(email, source);
    const m = this.redis.multi();
    for (const key of [k.source, k.pair, k.account]) m.incr(key).expire(key, this.window, "NX");
    await m.exec();
  }

  /** The right password: this source's count on this account starts again. */
  async succeeded(email: string, source: string): Promise<void> {
    await this.redis.del(this.keys(email, source).pair);
  }
}
