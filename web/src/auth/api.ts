/** The identity calls of the API contract. */
import type { AuthUser, Language, Session } from "@kikitori/shared";
import { apiFetch } from "../api/client.ts";
import type { TokenResponse } from "./session.ts";

const json = (body: unknown) => ({ method: "POST" as const, body, auth: false });

export const authApi = {
  register: (email: string, password: string, language: Language) =>
    apiFetch<AuthUser>("/api/auth/register", json({ email, password, language })),
  verifyEmail: (token: string) => apiFetch<{ emailVerified: boolean }>("/api/auth/verify-email", json({ token })),
  resendVerification: (email: string, language: Language) =>
    apiFetch<void>("/api/auth/resend-verification", json({ email, language })),
  login: (email: string, password: string) => apiFetch<Session>("/api/auth/login", json({ email, password })),
  refresh: (refreshToken: string) => apiFetch<TokenResponse>("/api/auth/refresh", json({ refreshToken })),
  logout: (refreshToken: string) => apiFetch<void>("/api/auth/logout", json({ refreshToken })),
  requestPasswordReset: (email: string, language: Language) =>
    apiFetch<void>("/api/auth/password-reset", json({ email, language })),
  checkPasswordReset: (token: string, signal?: AbortSignal) =>
    apiFetch<{ valid: true }>("/api/auth/password-reset/check", { ...json({ token }), signal }),
  confirmPasswordReset: (token: string, password: string) =>
    apiFetch<void>("/api/auth/password-reset/confirm", json({ token, password })),
};
