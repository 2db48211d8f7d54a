import type { QueryClient, QueryKey } from "@tanstack/react-query";

/**
 * Reads the queries under `queryKey` again after a change on the server (a write of the page's, or
 * one it was told of), with fetches that start now: every "read again" of the app goes through here.
 * An invalidation alone joins a fetch already on the way when the query has no data yet (a first
 * read, or a list keyed by a version that has just changed), and that fetch may have read before the
 * change: it is cancelled first.
 */
export async function refetchAfterWrite(client: QueryClient, queryKey: QueryKey): Promise<void> {
  await client.cancelQueries({ queryKey });
  await client.invalidateQueries({ queryKey });
}
