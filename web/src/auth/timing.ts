/**
 * Pure identity-session timing rules (SESSION_TIMINGS in @kikitori/shared; docs/decisions/0002-identity.md).
 * No DOM, no timers: every function takes `now`
 * so it can be unit-tested.
 */
import { refreshRetryDelay, SESSION_TIMINGS } from "@kikitori/shared";

/** Never re-arm a refresh timer sooner than this unless the token is already expired. */
export const MIN_REFRESH_DELAY_MS = 1_000;

/** Absolute expiry (ms since epoch) of an ID token issued at `now` with `expiresIn` seconds to live. */
export function expiresAtFrom(now: number, expiresInSeconds: number): number {
  return now + Math.max(0, expiresInSeconds) * 1000;
}

/** A token counts as expired 30 s before its real expiry. */
export function isTokenExpired(expiresAt: number, now: number): boolean {
  return now >= expiresAt - SESSION_TIMINGS.treatExpiredEarlyMs;
}

/**
 * Milliseconds to wait before refreshing: 5 minutes before expiry. For tokens that live shorter than
 * that, refresh half-way through the remaining usable lifetime so a short-lived token never spins.
 * Returns 0 when the token already counts as expired.
 */
export function refreshDelay(expiresAt: number, now: number): number {
  if (isTokenExpired(expiresAt, now)) return 0;
  const ideal = expiresAt - SESSION_TIMINGS.refreshBeforeExpiryMs - now;
  if (ideal > 0) return ideal;
  const usable = expiresAt - SESSION_TIMINGS.treatExpiredEarlyMs - now;
  return Math.max(MIN_REFRESH_DELAY_MS, Math.floor(usable / 2));
}

/** Delay before retry number `attempt` (0-based) after a failed refresh: 30 s doubling, capped at 16 min. */
export function retryDelay(attempt: number): number {
  return refreshRetryDelay(attempt);
}

const MOBILE_UA = /Mobi|Android|iPhone|iPad|iPod|Windows Phone|Opera Mini|IEMobile/i;

export function isMobileUserAgent(userAgent: string | undefined | null): boolean {
  return !!userAgent && MOBILE_UA.test(userAgent);
}

/** Network time-out: 30 s on desktop, 60 s on mobile user agents. */
export function networkTimeoutMs(userAgent: string | undefined | null): number {
  return isMobileUserAgent(userAgent)
    ? SESSION_TIMINGS.networkTimeoutMobileMs
    : SESSION_TIMINGS.networkTimeoutDesktopMs;
}
