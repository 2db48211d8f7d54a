import { Redis, type RedisOptions } from "ioredis";

export { Redis };

/**
 * Connections for the three roles BullMQ distinguishes (see its going-to-production guide):
 * - "producer": fails fast when Redis is down, so an HTTP request gets a 503 instead of hanging;
 * - "worker" / "subscriber": retry forever (maxRetriesPerRequest null) and reconnect.
 */
export function createRedis(url: string, role: "producer" | "worker" | "subscriber" | "client"): Redis {
  const opts: RedisOptions = {
    lazyConnect: false,
    // A subscriber may only send (P)SUBSCRIBE-family commands; the INFO ready check can race a
    // SUBSCRIBE issued while connecting ("Connection in subscriber mode").
    enableReadyCheck: role !== "subscriber",
    retryStrategy: (times) => Math.min(times * 200, 5_000),
    enableOfflineQueue: role !== "producer",
    maxRetriesPerRequest: role === "producer" ? 1 : role === "client" ? 3 : null,
  };
  return new Redis(url, opts);
}

export async function pingRedis(redis: Redis): Promise<void> {
  const res = await redis.ping();
  if (res !== "PONG") throw new Error(`unexpected PING answer ${res}`);
}
