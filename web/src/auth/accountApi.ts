/** The account page's calls (services/gateway/src/account/), each answer read through its shared schema. */
import {
  accountExportSchema,
  accountSchema,
  emailChangeConfirmResponseSchema,
  emailChangeResponseSchema,
  type Language,
  paymentsResponseSchema,
  sessionSchema,
} from "@kikitori/shared";
import { apiFetch, apiFetchParsed, bySchema } from "../api/client.ts";

export type { Account, PaymentRow } from "@kikitori/shared";

export const accountApi = {
  get: (signal?: AbortSignal) =>
    apiFetchParsed("/api/auth/account", bySchema(accountSchema), "Unexpected account answer", { signal }),
  payments: (signal?: AbortSignal) =>
    apiFetchParsed("/api/auth/account/payments", bySchema(paymentsResponseSchema), "Unexpected payments answer", {
      signal,
    }),
  changePassword: (currentPassword: string, newPassword: string) =>
    apiFetchParsed("/api/auth/account/password", bySchema(sessionSchema), "Unexpected password answer", {
      method: "POST",
      body: { currentPassword, newPassword },
    }),
  changeEmail: (password: string, newEmail: string, language: Language) =>
    apiFetchParsed("/api/auth/account/email", bySchema(emailChangeResponseSchema), "Unexpected e-mail answer", {
      method: "POST",
      body: { password, newEmail, language },
      okStatus: 202,
    }),
  confirmEmailChange: (token: string) =>
    apiFetchParsed(
      "/api/auth/account/email/confirm",
      bySchema(emailChangeConfirmResponseSchema),
      "Unexpected e-mail confirmation answer",
      { method: "POST", body: { token }, auth: false },
    ),
  export: () => apiFetchParsed("/api/auth/account/export", bySchema(accountExportSchema), "Unexpected data answer"),
  deleteWithPassword: (password: string) =>
    apiFetch("/api/auth/account/delete", { method: "POST", body: { password } }).then(() => undefined),
};

/** The file name of a data download: "kikitori-data-2026-11-25.json". Pure. */
export function exportFileName(now: Date): string {
  return `kikitori-data-${now.toISOString().slice(0, 10)}.json`;
}
