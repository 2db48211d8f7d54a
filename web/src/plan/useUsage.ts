import { type UsageRecord, usageRecordSchema } from "@kikitori/shared";
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "../api/client.ts";
import { ApiError } from "../api/errors.ts";

export const usageQueryKey = (uid: string) => ["usage", uid] as const;

/** GET /api/user-usage for the logged-in user. Failures are logged (spec) and surfaced as `error`. */
export function useUsage(uid: string | undefined) {
  return useQuery({
    queryKey: usageQueryKey(uid ?? ""),
    enabled: !!uid,
    queryFn: async (): Promise<UsageRecord> => {
      try {
        const raw = await apiFetch<unknown>(`/api/user-usage?uid=${encodeURIComponent(uid ?? "")}`);
        const parsed = usageRecordSchema.safeParse(raw);
        if (!parsed.success) throw new ApiError("BAD_RESPONSE", 200, "Unexpected usage record");
        return parsed.data;
      } catch (e) {
        console.error("Usage fetch failed", e);
        throw e;
      }
    },
  });
}
