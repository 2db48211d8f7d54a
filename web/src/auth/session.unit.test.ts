import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../api/errors.ts";
import {
  type KeyValueStorage,
  parseStoredSession,
  SESSION_STORAGE_KEY,
  SessionManager,
  type StoredSession,
  type TokenResponse,
} from "./session.ts";

const MIN = 60_000;
const user = { uid: "u-1", email: "a@example.com", emailVerified: true };

class MemoryStorage implements KeyValueStorage {
  readonly map = new Map<string, string>();
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, v);
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
}

/** A virtual clock with timers, advanced by hand. */
class FakeClock {
  now = 1_750_000_000_000;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  set = (fn: () => void, ms: number) => {
    const id = ++this.seq;
    this.timers.set(id, { at: this.now + ms, fn });
    return id;
  };
  clear = (id: unknown) => {
    this.timers.delete(id as number);
  };
  pending(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.now).sort((a, b) => a - b);
  }
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      const next = [...this.timers.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > end) break;
      this.timers.delete(next[0]);
      this.now = next[1].at;
      next[1].fn();
      await flush();
    }
    this.now = end;
    await flush();
  }
}

async function flush() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function setup(refresh: (rt: string) => Promise<TokenResponse>) {
  const clock = new FakeClock();
  const storage = new MemoryStorage();
  const calls: string[] = [];
  const manager = new SessionManager({
    storage,
    refresh: (rt) => {
      calls.push(rt);
      return refresh(rt);
    },
    isInvalidRefresh: (e) => e instanceof ApiError && e.code === "INVALID_REFRESH_TOKEN",
    now: () => clock.now,
    setTimer: clock.set,
    clearTimer: clock.clear,
  });
  return { clock, storage, manager, calls };
}

const stored = (s: StoredSession) => JSON.stringify(s);

describe("parseStoredSession", () => {
  it("reads a valid session", () => {
    const s = { user, idToken: "id", refreshToken: "rt", expiresAt: 123 };
    expect(parseStoredSession(stored(s))).toEqual(s);
  });
  it.each([null, "", "not json", "{}", '{"user":{}}', JSON.stringify({ user, idToken: "id", refreshToken: "rt" })])(
    "rejects %p",
    (raw) => {
      expect(parseStoredSession(raw)).toBeNull();
    },
  );
});

describe("SessionManager", () => {
  it("stores the login under the user key and schedules a refresh 5 minutes before expiry", () => {
    const { manager, storage, clock } = setup(async () => ({ idToken: "x", expiresIn: 3600 }));
    manager.start();
    manager.setSession({ idToken: "id1", refreshToken: "rt1", expiresIn: 3600, user });
    const saved = JSON.parse(storage.getItem(SESSION_STORAGE_KEY) ?? "null");
    expect(saved).toEqual({ user, idToken: "id1", refreshToken: "rt1", expiresAt: clock.now + 3_600_000 });
    expect(clock.pending()).toEqual([55 * MIN]);
  });

  it("refreshes on time, keeps the user and adopts the rotated refresh token", async () => {
    const { manager, clock, calls } = setup(async () => ({ idToken: "id2", refreshToken: "rt2", expiresIn: 3600 }));
    manager.start();
    manager.setSession({ idToken: "id1", refreshToken: "rt1", expiresIn: 3600, user });
    await clock.advance(55 * MIN - 1);
    expect(calls).toEqual([]);
    await clock.advance(1);
    expect(calls).toEqual(["rt1"]);
    expect(manager.getSnapshot()).toMatchObject({ idToken: "id2", refreshToken: "rt2", user });
    expect(clock.pending()).toEqual([55 * MIN]);
  });

  it("retries failed refreshes with 30 s doubling backoff", async () => {
    let fail = 3;
    const { manager, clock, calls } = setup(async () => {
      if (fail-- > 0) throw new ApiError("NETWORK_ERROR", 0, "offline");
      return { idToken: "id2", expiresIn: 3600 };
    });
    manager.start();
    manager.setSession({ idToken: "id1", refreshToken: "rt1", expiresIn: 3600, user });
    await clock.advance(55 * MIN);
    expect(calls.length).toBe(1);
    expect(clock.pending()).toEqual([30_000]);
    await clock.advance(30_000);
    expect(clock.pending()).toEqual([60_000]);
    await clock.advance(60_000);
    expect(clock.pending()).toEqual([120_000]);
    await clock.advance(120_000);
    expect(calls.length).toBe(4);
    expect(manager.getSnapshot()?.idToken).toBe("id2");
    // Kept the old refresh token since the answer had none.
    expect(manager.getSnapshot()?.refreshToken).toBe("rt1");
    expect(clock.pending()).toEqual([55 * MIN]);
  });

  it("logs out when the refresh token is rejected", async () => {
    const { manager, clock, storage } = setup(async () => {
      throw new ApiError("INVALID_REFRESH_TOKEN", 401, "revoked");
    });
    const seen: (StoredSession | null)[] = [];
    manager.subscribe(() => seen.push(manager.getSnapshot()));
    manager.start();
    manager.setSession({ idToken: "id1", refreshToken: "rt1", expiresIn: 3600, user });
    await clock.advance(55 * MIN);
    expect(manager.getSnapshot()).toBeNull();
    expect(storage.getItem(SESSION_STORAGE_KEY)).toBeNull();
    expect(seen.at(-1)).toBeNull();
    expect(clock.pending()).toEqual([]);
  });

  it("adopts a token another tab rotated instead of logging out", async () => {
    const { manager, clock, storage } = setup(async () => {
      // The other tab won the race: our refresh token was already used.
      storage.setItem(
        SESSION_STORAGE_KEY,
        stored({ user, idToken: "other", refreshToken: "rt-other", expiresAt: clock.now + 3_600_000 }),
      );
      throw new ApiError("INVALID_REFRESH_TOKEN", 401, "reused");
    });
    manager.start();
    manager.setSession({ idToken: "id1", refreshToken: "rt1", expiresIn: 3600, user });
    await clock.advance(55 * MIN);
    expect(manager.getSnapshot()).toMatchObject({ idToken: "other", refreshToken: "rt-other" });
  });

  it("shares one request between concurrent callers and refreshes an expired token on demand", async () => {
    let resolve: (v: TokenResponse) => void = () => {};
    const { manager, clock, calls } = setup(() => new Promise((r) => (resolve = r)));
    manager.setSession({ idToken: "id1", refreshToken: "rt1", expiresIn: 3600, user });
    expect(await manager.getValidIdToken()).toBe("id1");
    clock.now += 3_600_000 - 30_000;
    const a = manager.getValidIdToken();
    const b = manager.getValidIdToken();
    await flush();
    expect(calls).toEqual(["rt1"]);
    resolve({ idToken: "id2", expiresIn: 3600 });
    expect(await a).toBe("id2");
    expect(await b).toBe("id2");
  });

  it("follows other tabs through storage", () => {
    const { manager, storage } = setup(async () => ({ idToken: "x", expiresIn: 1 }));
    let changes = 0;
    manager.subscribe(() => changes++);
    storage.setItem(SESSION_STORAGE_KEY, stored({ user, idToken: "id9", refreshToken: "rt9", expiresAt: 1 }));
    manager.syncFromStorage();
    expect(manager.getSnapshot()?.idToken).toBe("id9");
    manager.syncFromStorage();
    expect(changes).toBe(1);
    storage.removeItem(SESSION_STORAGE_KEY);
    manager.syncFromStorage();
    expect(manager.getSnapshot()).toBeNull();
  });

  it("does not bring a session back that was logged out during the refresh", async () => {
    let resolve: (v: TokenResponse) => void = () => {};
    const { manager, clock } = setup(() => new Promise((r) => (resolve = r)));
    manager.setSession({ idToken: "id1", refreshToken: "rt1", expiresIn: 3600, user });
    clock.now += 3_600_000;
    const pending = manager.refreshNow();
    await flush();
    manager.clear();
    resolve({ idToken: "id2", refreshToken: "rt2", expiresIn: 3600 });
    expect(await pending).toBeNull();
    expect(manager.getSnapshot()).toBeNull();
  });
});
