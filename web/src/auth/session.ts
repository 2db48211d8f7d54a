/**
 * The browser session: kept in storage under the "user" key as
 * `{user, idToken, refreshToken, expiresAt}`, refreshed 5 minutes before expiry, retried with backoff,
 * dropped when the server says the refresh token is invalid, and shared between tabs.
 *
 * Everything environment-specific (storage, clock, timers, the refresh call, a cross-tab lock) is
 * injected, so this module has no DOM dependency and can be unit-tested.
 */
import type { AuthUser } from "@kikitori/shared";
import { expiresAtFrom, isTokenExpired, refreshDelay, retryDelay } from "./timing.ts";

export const SESSION_STORAGE_KEY = "user";

export interface StoredSession {
  user: AuthUser;
  idToken: string;
  refreshToken: string;
  /** Absolute ID-token expiry, ms since epoch. */
  expiresAt: number;
}

/** What login and refresh answer with; refresh may omit the user and the (rotated) refresh token. */
export interface TokenResponse {
  idToken: string;
  expiresIn: number;
  refreshToken?: string;
  user?: AuthUser;
}

export type KeyValueStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function nonEmptyString(v: unknown): v is string {
  return typeof v === "string" && v.length > 0;
}

/** Reads a stored session, or null when missing or malformed. */
export function parseStoredSession(raw: string | null): StoredSession | null {
  if (!raw) return null;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isRecord(v) || !isRecord(v.user)) return null;
  const { user, idToken, refreshToken, expiresAt } = v;
  if (!nonEmptyString(user.uid) || typeof user.email !== "string" || typeof user.emailVerified !== "boolean") {
    return null;
  }
  if (!nonEmptyString(idToken) || !nonEmptyString(refreshToken)) return null;
  if (typeof expiresAt !== "number" || !Number.isFinite(expiresAt)) return null;
  return {
    user: { uid: user.uid, email: user.email, emailVerified: user.emailVerified },
    idToken,
    refreshToken,
    expiresAt,
  };
}

/** Builds the stored session from a login or refresh answer; `previous` fills what refresh leaves out. */
export function toStoredSession(res: TokenResponse, now: number, previous?: StoredSession | null): StoredSession {
  const user = res.user ?? previous?.user;
  const refreshToken = res.refreshToken ?? previous?.refreshToken;
  if (!user || !refreshToken) throw new Error("Token response without user or refresh token");
  return { user, idToken: res.idToken, refreshToken, expiresAt: expiresAtFrom(now, res.expiresIn) };
}

/** Largest delay setTimeout accepts. */
const MAX_TIMER_MS = 2_147_483_647;

export interface SessionManagerDeps {
  storage: KeyValueStorage;
  /** POST /api/auth/refresh. Rejects with the server's error. */
  refresh: (refreshToken: string) => Promise<TokenResponse>;
  /** True when a refresh error means the refresh token is no good (401 INVALID_REFRESH_TOKEN). */
  isInvalidRefresh: (error: unknown) => boolean;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  /** Serialises refreshes across tabs (Web Locks in the browser). */
  withLock?: <T>(fn: () => Promise<T>) => Promise<T>;
  log?: (message: string, error?: unknown) => void;
}

export class SessionManager {
  private session: StoredSession | null;
  private readonly listeners = new Set<() => void>();
  private timer: unknown = null;
  private attempt = 0;
  private inflight: Promise<StoredSession | null> | null = null;
  private started = false;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private readonly withLock: <T>(fn: () => Promise<T>) => Promise<T>;
  private readonly log: (message: string, error?: unknown) => void;

  constructor(private readonly deps: SessionManagerDeps) {
    this.now = deps.now ?? Date.now;
    this.setTimer = deps.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = deps.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
    this.withLock = deps.withLock ?? ((fn) => fn());
    this.log = deps.log ?? (() => {});
    this.session = this.read();
  }

  /** Current session; the same object until it changes (useSyncExternalStore-friendly). */
  getSnapshot = (): StoredSession | null => this.session;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Starts the refresh timer. */
  start(): void {
    this.started = true;
    this.schedule();
  }

  stop(): void {
    this.started = false;
    this.cancelTimer();
  }

  /** Stores a fresh session after login. */
  setSession(res: TokenResponse): StoredSession {
    const next = toStoredSession(res, this.now());
    this.write(next);
    this.apply(next);
    return next;
  }

  /** Forgets the session (logout, account deleted, refresh token rejected). */
  clear(): void {
    try {
      this.deps.storage.removeItem(SESSION_STORAGE_KEY);
    } catch (e) {
      this.log("session: could not clear storage", e);
    }
    this.apply(null);
  }

  /** Re-reads storage, e.g. after another tab changed it (the storage event). */
  syncFromStorage(): void {
    const next = this.read();
    const cur = this.session;
    if (next?.idToken === cur?.idToken && next?.refreshToken === cur?.refreshToken) return;
    this.apply(next);
  }

  /** Re-arms the timer from the current clock (e.g. after the tab wakes up). */
  reschedule(): void {
    this.schedule();
  }

  /** The ID token, refreshed first when it counts as expired. Null when logged out. */
  async getValidIdToken(): Promise<string | null> {
    const s = this.session;
    if (!s) return null;
    if (!isTokenExpired(s.expiresAt, this.now())) return s.idToken;
    try {
      const fresh = await this.refreshNow();
      return fresh?.idToken ?? null;
    } catch (e) {
      this.log("session: refresh before request failed", e);
      // Let the server decide; it answers TOKEN_EXPIRED and the UI shows that.
      return this.session?.idToken ?? null;
    }
  }

  /** Refreshes now; concurrent callers share one request. Resolves null when the session is gone. */
  refreshNow(): Promise<StoredSession | null> {
    if (!this.inflight) {
      this.inflight = this.withLock(() => this.doRefresh()).finally(() => {
        this.inflight = null;
      });
    }
    return this.inflight;
  }

  private async doRefresh(): Promise<StoredSession | null> {
    const current = this.read();
    if (!current) {
      this.apply(null);
      return null;
    }
    // Another tab refreshed (and rotated the refresh token) while we waited for the lock.
    if (this.session && current.refreshToken !== this.session.refreshToken) {
      this.apply(current);
      if (!isTokenExpired(current.expiresAt, this.now())) return current;
    }
    let res: TokenResponse;
    try {
      res = await this.deps.refresh(current.refreshToken);
    } catch (e) {
      if (this.deps.isInvalidRefresh(e)) {
        const latest = this.read();
        if (latest && latest.refreshToken !== current.refreshToken) {
          this.apply(latest);
          return latest;
        }
        this.log("session: refresh token rejected, logging out", e);
        this.clear();
        return null;
      }
      throw e;
    }
    // Logged out (here or in another tab) while the request ran: do not bring the session back.
    const latest = this.read();
    if (!latest || latest.refreshToken !== current.refreshToken) {
      this.apply(latest);
      return latest;
    }
    const next = toStoredSession(res, this.now(), current);
    this.write(next);
    this.apply(next);
    return next;
  }

  private apply(next: StoredSession | null): void {
    const changed = next !== this.session;
    this.session = next;
    this.attempt = 0;
    this.schedule();
    if (changed) for (const l of [...this.listeners]) l();
  }

  private schedule(): void {
    this.cancelTimer();
    if (!this.started || !this.session) return;
    const delay = this.attempt > 0 ? retryDelay(this.attempt - 1) : refreshDelay(this.session.expiresAt, this.now());
    this.timer = this.setTimer(() => void this.onTimer(), Math.min(delay, MAX_TIMER_MS));
  }

  private async onTimer(): Promise<void> {
    this.timer = null;
    try {
      await this.refreshNow();
    } catch (e) {
      this.attempt += 1;
      this.log(`session: refresh failed, retry #${this.attempt}`, e);
      this.schedule();
    }
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
  }

  private read(): StoredSession | null {
    try {
      return parseStoredSession(this.deps.storage.getItem(SESSION_STORAGE_KEY));
    } catch (e) {
      this.log("session: could not read storage", e);
      return null;
    }
  }

  private write(s: StoredSession): void {
    try {
      this.deps.storage.setItem(SESSION_STORAGE_KEY, JSON.stringify(s));
    } catch (e) {
      this.log("session: could not write storage", e);
    }
  }
}
