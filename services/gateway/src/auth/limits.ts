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
