import type { QueryClient, QueryKey } from "@tanstack/react-query";

/**
 * Reads the queries under `queryKey` again after a write, with fetches that start now. An invalidation
 * alone joins a fetch already on the way when the query has no data yet (a list keyed by a version
 * that has just changed), and that fetch may have read before the write: it is cancelled first.
 */
export async function refetchAfterWrite(client: QueryClient, queryKey: QueryKey): Promise<void> {
  await client.cancelQueries({ queryKey });
  await client.invalidateQueries({ queryKey });
}
