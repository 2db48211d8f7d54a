import type { AuthUser, Session } from "@kikitori/shared";
import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useSyncExternalStore } from "react";
import { ApiError } from "../api/errors.ts";
import { accountApi } from "./accountApi.ts";
import { authApi } from "./api.ts";
import type { StoredSession } from "./session.ts";
import { sessionManager } from "./session-instance.ts";

export interface AuthContextValue {
  session: StoredSession | null;
  user: AuthUser | null;
  /** Logs in; rejects with ApiError (EMAIL_NOT_VERIFIED, INVALID_CREDENTIALS, …). */
  login(email: string, password: string): Promise<AuthUser>;
  logout(): Promise<void>;
  /** Deletes the account after checking the password; rejects on failure (the session is kept then). */
  deleteAccount(password: string): Promise<void>;
  /** Replaces the session (a password change ends the old one and hands out a new one). */
  replaceSession(session: Session): void;
  /** Forgets the session locally (after the e-mail changed, every login has ended). */
  forget(): void;
}

const AuthContext = createContext<AuthContextValue | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const session = useSyncExternalStore(sessionManager.subscribe, sessionManager.getSnapshot);
  const queryClient = useQueryClient();

  const login = useCallback(async (email: string, password: string) => {
    const res = await authApi.login(email, password);
    if (!res.user.emailVerified) throw new ApiError("EMAIL_NOT_VERIFIED", 403, "E-mail not verified");
    sessionManager.setSession(res);
    return res.user;
  }, []);

  const forget = useCallback(() => {
    sessionManager.clear();
    queryClient.removeQueries({ queryKey: ["usage"] });
  }, [queryClient]);

  const logout = useCallback(async () => {
    const refreshToken = sessionManager.getSnapshot()?.refreshToken;
    forget();
    if (refreshToken) {
      await authApi.logout(refreshToken).catch((e: unknown) => console.warn("logout: revoke failed", e));
    }
  }, [forget]);

  const deleteAccount = useCallback(
    async (password: string) => {
      await accountApi.deleteWithPassword(password);
      forget();
    },
    [forget],
  );

  const replaceSession = useCallback((next: Session) => sessionManager.setSession(next), []);

  const value = useMemo<AuthContextValue>(
    () => ({ session, user: session?.user ?? null, login, logout, deleteAccount, replaceSession, forget }),
    [session, login, logout, deleteAccount, replaceSession, forget],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthContextValue {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error("useAuth outside AuthProvider");
  return ctx;
}
