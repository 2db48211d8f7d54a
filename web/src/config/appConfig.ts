/** Runtime configuration served by the gateway at GET /api/config, with fallbacks. */
import { type AppConfig, appConfigSchema } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { apiFetchParsed, bySchema } from "../api/client.ts";

export type { AppConfig };

export const DEFAULT_CONFIG: AppConfig = {
  appName: "Kikitori",
  howToUseUrl: "",
  contactUrl: "",
  termsUrl: "",
  privacyUrl: "",
};

/** Trims the answer's fields; an empty one falls back to its default. */
export function mergeConfig(config: AppConfig): AppConfig {
  const out = { ...DEFAULT_CONFIG };
  for (const key of Object.keys(DEFAULT_CONFIG) as (keyof AppConfig)[]) {
    const v = config[key].trim();
    if (v) out[key] = v;
  }
  return out;
}

export function useAppConfig(): AppConfig {
  const { data } = useQuery({
    queryKey: ["config"],
    queryFn: async () =>
      mergeConfig(
        await apiFetchParsed("/api/config", bySchema(appConfigSchema), "Unexpected config answer", { auth: false }),
      ),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    retry: 1,
  });
  return data ?? DEFAULT_CONFIG;
}
