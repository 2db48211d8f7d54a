import { describe, expect, it } from "@jest/globals";
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { refetchAfterWrite } from "./refetch.ts";

/**
 * A list on a server whose reads answer when released, with the items as they were when read, and the
 * page's view of it keyed by a version that has just changed: its first read is on the way. Then a
 * write lands (an item is added).
 */
function listReadBeforeWrite() {
  const items = ["a", "b"];
  const pending: Array<() => void> = [];
  const read = () =>
    new Promise<string[]>((resolve) => {
      const seen = items.slice();
      pending.push(() => resolve(seen));
    });
  const client = new QueryClient();
  const observer = new QueryObserver(client, { queryKey: ["quotes", "job", 2], queryFn: read });
  const unsubscribe = observer.subscribe(() => {});
  items.push("c");
  return {
    client,
    shown: () => observer.getCurrentResult().data,
    /** Answers every read on the way. */
    release: async () => {
      while (pending.length) pending.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    },
    close: () => {
      unsubscribe();
      client.clear();
    },
  };
}

describe("refetchAfterWrite", () => {
  it("does not join a read of a new key that started before the write", async () => {
    const list = listReadBeforeWrite();
    const refetched = refetchAfterWrite(list.client, ["quotes", "job"]);
    await list.release();
    await list.release();
    await refetched;
    expect(list.shown()).toEqual(["a", "b", "c"]);
    list.close();
  });

  it("an invalidation alone would keep the stale read (why the cancel is needed)", async () => {
    const list = listReadBeforeWrite();
    const refetched = list.client.invalidateQueries({ queryKey: ["quotes", "job"] });
    await list.release();
    await refetched;
    expect(list.shown()).toEqual(["a", "b"]);
    list.close();
  });
});
