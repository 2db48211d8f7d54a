import { describe, expect, it } from "@jest/globals";
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { refetchAfterWrite } from "./refetch.ts";

/** A list on a server: each read answers when `release` is called, with the items as they were read. */
function slowList() {
  const items = ["a", "b"];
  const pending: Array<() => void> = [];
  const read = () =>
    new Promise<string[]>((resolve) => {
      const seen = items.slice();
      pending.push(() => resolve(seen));
    });
  const release = async () => {
    while (pending.length) pending.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { items, read, release };
}

describe("refetchAfterWrite", () => {
  it("does not join a read of a new key that started before the write", async () => {
    const client = new QueryClient();
    const server = slowList();
    // The page's list, keyed by the job's version, which has just changed: its first read is on the way.
    const observer = new QueryObserver(client, { queryKey: ["quotes", "job", 2], queryFn: server.read });
    const stop = observer.subscribe(() => {});
    // The write lands after that read was taken, then the list is read again.
    server.items.push("c");
    const refetched = refetchAfterWrite(client, ["quotes", "job"]);
    await server.release();
    await server.release();
    await refetched;
    expect(observer.getCurrentResult().data).toEqual(["a", "b", "c"]);
    stop();
    client.clear();
  });

  it("an invalidation alone would keep the stale read (why the cancel is needed)", async () => {
    const client = new QueryClient();
    const server = slowList();
    const observer = new QueryObserver(client, { queryKey: ["quotes", "job", 2], queryFn: server.read });
    const stop = observer.subscribe(() => {});
    server.items.push("c");
    const refetched = client.invalidateQueries({ queryKey: ["quotes", "job"] });
    await server.release();
    await refetched;
    expect(observer.getCurrentResult().data).toEqual(["a", "b"]);
    stop();
    client.clear();
  });
});
