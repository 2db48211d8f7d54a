/** Runtime configuration served by the gateway at GET /api/config, with fallbacks. */
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "../api/client.ts";

export interface AppConfig {
  appName: string;
  howToUseUrl: string;
  contactUrl: string;
  termsUrl: string;
  privacyUrl: string;
}

export const DEFAULT_CONFIG: AppConfig = {
  appName: "Kikitori",
  howToUseUrl: "",
  contactUrl: "",
  termsUrl: "",
  privacyUrl: "",
};

/** Keeps known string fields of the answer, falls back field by field. */
export function mergeConfig(raw: unknown): AppConfig {
  const out = { ...DEFAULT_CONFIG };
  if (typeof raw !== "object" || raw === null) return out;
  const r = raw as Record<string, unknown>;
  for (const key of Object.keys(DEFAULT_CONFIG) as (keyof AppConfig)[]) {
    const v = r[key];
    if (typeof v === "string" && v.trim()) out[key] = v.trim();
  }
  return out;
}

export function useAppConfig(): AppConfig {
  const { data } = useQuery({
    queryKey: ["config"],
    queryFn: async () => mergeConfig(await apiFetch<unknown>("/api/config", { auth: false })),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    retry: 1,
  });
  return data ?? DEFAULT_CONFIG;
}
