/** The account page's calls (gateway auth/account.ts). */
import type { Language, Session } from "@kikitori/shared";
import { apiFetch } from "../api/client.ts";

export interface Account {
  uid: string;
  email: string;
  emailVerified: boolean;
  language: string;
  plan: string;
  pendingPlan: string | null;
  resetDate: string;
  createdAt: string;
}

export interface PaymentRow {
  id: string;
  date: string;
  kind: string;
  fromPlan: string;
  plan: string;
  amount: number;
  currency: string;
  status: string;
  card: string | null;
  periodStart: string;
  periodEnd: string;
}

export const accountApi = {
  get: (signal?: AbortSignal) => apiFetch<Account>("/api/auth/account", { signal }),
  payments: (signal?: AbortSignal) => apiFetch<{ payments: PaymentRow[] }>("/api/auth/account/payments", { signal }),
  changePassword: (currentPassword: string, newPassword: string) =>
    apiFetch<Session>("/api/auth/account/password", { method: "POST", body: { currentPassword, newPassword } }),
  changeEmail: (password: string, newEmail: string, language: Language) =>
    apiFetch<{ pendingEmail: string }>("/api/auth/account/email", {
      method: "POST",
      body: { password, newEmail, language },
    }),
  confirmEmailChange: (token: string) =>
    apiFetch<{ email: string }>("/api/auth/account/email/confirm", { method: "POST", body: { token }, auth: false }),
  export: () => apiFetch<unknown>("/api/auth/account/export"),
  deleteWithPassword: (password: string) =>
    apiFetch<void>("/api/auth/account/delete", { method: "POST", body: { password } }),
};

/** The file name of a data download: "kikitori-data-2026-11-25.json". Pure. */
export function exportFileName(now: Date): string {
  return `kikitori-data-${now.toISOString().slice(0, 10)}.json`;
}
