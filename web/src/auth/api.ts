/** The identity calls, each answer read through its shared schema (@kikitori/shared auth.ts). */
import {
  acceptedResponseSchema,
  type Language,
  passwordResetCheckResponseSchema,
  sessionSchema,
  verifyEmailResponseSchema,
} from "@kikitori/shared";
import { apiFetch, apiFetchParsed, bySchema } from "../api/client.ts";

const json = (body: unknown) => ({ method: "POST" as const, body, auth: false });

/** A call answered with 204 (no body). */
const send = (path: string, body: unknown) => apiFetch(path, json(body)).then(() => undefined);

export const authApi = {
  register: (email: string, password: string, language: Language) =>
    // 202 for a new and a taken address alike: either way the next step is in the mailbox.
    apiFetchParsed("/api/auth/register", bySchema(acceptedResponseSchema), "Unexpected registration answer", {
      ...json({ email, password, language }),
      okStatus: 202,
    }).then(() => undefined),
  verifyEmail: (token: string) =>
    apiFetchParsed(
      "/api/auth/verify-email",
      bySchema(verifyEmailResponseSchema),
      "Unexpected verification answer",
      json({ token }),
    ),
  resendVerification: (email: string, language: Language) =>
    apiFetchParsed("/api/auth/resend-verification", bySchema(acceptedResponseSchema), "Unexpected answer", {
      ...json({ email, language }),
      okStatus: 202,
    }).then(() => undefined),
  login: (email: string, password: string) =>
    apiFetchParsed("/api/auth/login", bySchema(sessionSchema), "Unexpected login answer", json({ email, password })),
  refresh: (refreshToken: string) =>
    apiFetchParsed("/api/auth/refresh", bySchema(sessionSchema), "Unexpected refresh answer", json({ refreshToken })),
  logout: (refreshToken: string) => send("/api/auth/logout", { refreshToken }),
  requestPasswordReset: (email: string, language: Language) =>
    apiFetchParsed("/api/auth/password-reset", bySchema(acceptedResponseSchema), "Unexpected answer", {
      ...json({ email, language }),
      okStatus: 202,
    }).then(() => undefined),
  checkPasswordReset: (token: string, signal?: AbortSignal) =>
    apiFetchParsed(
      "/api/auth/password-reset/check",
      bySchema(passwordResetCheckResponseSchema),
      "Unexpected link check answer",
      { ...json({ token }), signal },
    ),
  confirmPasswordReset: (token: string, password: string) =>
    send("/api/auth/password-reset/confirm", { token, password }),
};
