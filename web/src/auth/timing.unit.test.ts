import { describe, expect, it } from "@jest/globals";
import {
  expiresAtFrom,
  isMobileUserAgent,
  isTokenExpired,
  MIN_REFRESH_DELAY_MS,
  networkTimeoutMs,
  refreshDelay,
  retryDelay,
} from "./timing.ts";

const MIN = 60_000;
const NOW = 1_750_000_000_000;

describe("expiresAtFrom", () => {
  it("adds expiresIn seconds to now", () => {
    expect(expiresAtFrom(NOW, 3600)).toBe(NOW + 3_600_000);
  });
  it("never goes into the past", () => {
    expect(expiresAtFrom(NOW, -5)).toBe(NOW);
  });
});

describe("isTokenExpired", () => {
  const expiresAt = NOW + 60 * MIN;
  it("is false while more than 30 s remain", () => {
    expect(isTokenExpired(expiresAt, expiresAt - 30_001)).toBe(false);
  });
  it("is true 30 s before the real expiry", () => {
    expect(isTokenExpired(expiresAt, expiresAt - 30_000)).toBe(true);
    expect(isTokenExpired(expiresAt, expiresAt + 1)).toBe(true);
  });
});

describe("refreshDelay", () => {
  it("refreshes 5 minutes before expiry", () => {
    expect(refreshDelay(NOW + 60 * MIN, NOW)).toBe(55 * MIN);
  });
  it("is 0 once the token counts as expired", () => {
    expect(refreshDelay(NOW + 10_000, NOW)).toBe(0);
    expect(refreshDelay(NOW - 1, NOW)).toBe(0);
  });
  it("refreshes half-way through the usable lifetime inside the last 5 minutes", () => {
    // 4 min left, 30 s of it already counts as expired: (240 - 30) / 2 s.
    expect(refreshDelay(NOW + 4 * MIN, NOW)).toBe(105_000);
  });
  it("never spins on a token that is about to count as expired", () => {
    expect(refreshDelay(NOW + 30_500, NOW)).toBe(MIN_REFRESH_DELAY_MS);
  });
});

describe("retryDelay", () => {
  it("starts at 30 s and doubles", () => {
    expect([0, 1, 2, 3, 4].map(retryDelay)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000]);
  });
  it("is capped at 16 minutes", () => {
    expect(retryDelay(5)).toBe(16 * MIN);
    expect(retryDelay(50)).toBe(16 * MIN);
  });
});

describe("network time-out", () => {
  const desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";
  const iphone =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
  const android =
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Mobile Safari/537.36";

  it("detects mobile user agents", () => {
    expect(isMobileUserAgent(desktop)).toBe(false);
    expect(isMobileUserAgent(iphone)).toBe(true);
    expect(isMobileUserAgent(android)).toBe(true);
    expect(isMobileUserAgent(undefined)).toBe(false);
  });
  it("is 30 s on desktop and 60 s on mobile", () => {
    expect(networkTimeoutMs(desktop)).toBe(30_000);
    expect(networkTimeoutMs(iphone)).toBe(60_000);
  });
});
