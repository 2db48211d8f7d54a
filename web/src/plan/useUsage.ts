import { type UsageRecord, usageRecordSchema } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { apiFetchParsed, bySchema } from "../api/client.ts";

export const usageQueryKey = (uid: string) => ["usage", uid] as const;

/** GET /api/user-usage for the logged-in user. Failures are logged and surfaced as `error`. */
export function useUsage(uid: string | undefined) {
  return useQuery({
    queryKey: usageQueryKey(uid ?? ""),
    enabled: !!uid,
    queryFn: async (): Promise<UsageRecord> => {
      try {
        return await apiFetchParsed(
          `/api/user-usage?uid=${encodeURIComponent(uid ?? "")}`,
          bySchema(usageRecordSchema),
          "Unexpected usage record",
        );
      } catch (e) {
        console.error("Usage fetch failed", e);
        throw e;
      }
    },
  });
}
