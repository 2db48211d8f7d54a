/** The browser's one SessionManager, wired to localStorage, timers, Web Locks and the storage event. */
import { configureAuth } from "../api/client.ts";
import { isApiError } from "../api/errors.ts";
import { authApi } from "./api.ts";
import { type KeyValueStorage, SESSION_STORAGE_KEY, SessionManager } from "./session.ts";

function memoryStorage(): KeyValueStorage {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
  };
}

function browserStorage(): KeyValueStorage {
  try {
    const probe = "__kikitori_probe__";
    window.localStorage.setItem(probe, probe);
    window.localStorage.removeItem(probe);
    return window.localStorage;
  } catch {
    return memoryStorage();
  }
}

async function withWebLock<T>(fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
  // request() resolves with the callback's (awaited) result.
  return locks ? await locks.request("kikitori-session-refresh", fn) : fn();
}

export const sessionManager = new SessionManager({
  storage: browserStorage(),
  refresh: (refreshToken) => authApi.refresh(refreshToken),
  isInvalidRefresh: (e) => isApiError(e) && (e.code === "INVALID_REFRESH_TOKEN" || e.status === 401),
  withLock: withWebLock,
  log: (message, error) => console.warn(message, error ?? ""),
});

configureAuth(sessionManager);

window.addEventListener("storage", (e) => {
  if (e.key === SESSION_STORAGE_KEY || e.key === null) sessionManager.syncFromStorage();
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") sessionManager.reschedule();
});

sessionManager.start();
