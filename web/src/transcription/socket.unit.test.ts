import { describe, expect, it } from "@jest/globals";
import type { ProgressEvent, SegmentsEvent } from "@kikitori/shared";
import {
  ProgressSocket,
  type ProgressSocketOptions,
  parseServerMessage,
  reconnectDelay,
  type SocketLike,
  socketUrl,
} from "./socket.ts";

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  closedWith: number | null = null;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(data);
  }
  close(code?: number) {
    this.closedWith = code ?? 1000;
    this.readyState = 3;
  }
  // server side
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(msg: unknown) {
    this.onmessage?.({ data: typeof msg === "string" ? msg : JSON.stringify(msg) });
  }
  drop(code: number) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
}

class Timers {
  private next = 1;
  readonly pending = new Map<number, { fn: () => void; ms: number }>();
  set = (fn: () => void, ms: number) => {
    const id = this.next++;
    this.pending.set(id, { fn, ms });
    return id;
  };
  clear = (h: unknown) => {
    this.pending.delete(h as number);
  };
  delays() {
    return [...this.pending.values()].map((p) => p.ms);
  }
  fireAll() {
    const all = [...this.pending.entries()];
    this.pending.clear();
    for (const [, p] of all) p.fn();
  }
}

const flush = () => new Promise((r) => setTimeout(r, 0));

function setup(over: Partial<ProgressSocketOptions> = {}) {
  const sockets: FakeSocket[] = [];
  const events: ProgressEvent[] = [];
  const segments: SegmentsEvent[] = [];
  const logs: string[] = [];
  const timers = new Timers();
  let readyCount = 0;
  let refreshes = 0;
  let token: string | null = "tok-1";
  const client = new ProgressSocket({
    url: "ws://h/ws",
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    getToken: async () => token,
    refreshToken: async () => {
      refreshes++;
      token = token ? `tok-${refreshes + 1}` : null;
      return token;
    },
    onEvent: (e) => events.push(e),
    onSegments: (e) => segments.push(e),
    onReady: () => readyCount++,
    setTimer: timers.set,
    clearTimer: timers.clear,
    log: (m) => logs.push(m),
    ...over,
  });
  return {
    client,
    sockets,
    events,
    segments,
    logs,
    timers,
    ready: () => readyCount,
    refreshes: () => refreshes,
    logout: () => {
      token = null;
    },
  };
}

describe("helpers", () => {
  it("backoff: 1 s doubling to 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it("socket URL follows the page's scheme and host", () => {
    expect(socketUrl({ protocol: "https:", host: "app.example.com" })).toBe("wss://app.example.com/ws");
    expect(socketUrl({ protocol: "http:", host: "localhost:5173" })).toBe("ws://localhost:5173/ws");
  });

  it("parses ready, events, unknown statuses and junk", () => {
    expect(parseServerMessage('{"type":"ready"}')).toEqual({ kind: "ready" });
    expect(parseServerMessage('{"type":"pong"}')).toEqual({ kind: "pong" });
    const ok = parseServerMessage(
      JSON.stringify({ jobId: "j", status: "Transcription in progress", transcriptionProgress: 30 }),
    );
    expect(ok).toEqual({
      kind: "event",
      event: { jobId: "j", status: "Transcription in progress", transcriptionProgress: 30 },
    });
    expect(parseServerMessage('{"jobId":"j","status":"Diarizing"}')).toEqual({ kind: "unknown", status: "Diarizing" });
    expect(parseServerMessage('{"jobId":"j","status":"Transcription in progress"}').kind).toBe("invalid");
    expect(parseServerMessage("not json").kind).toBe("invalid");
    expect(parseServerMessage("[1]").kind).toBe("invalid");
    expect(parseServerMessage(new ArrayBuffer(2)).kind).toBe("invalid");
  });

  it("parses live-text (segments) messages and refuses malformed ones", () => {
    expect(parseServerMessage(JSON.stringify(SEGMENTS))).toEqual({ kind: "segments", event: SEGMENTS });
    const withWords = {
      ...SEGMENTS,
      segments: [{ start: 0, end: 1, text: "Hi", words: [{ start: 0, end: 1, text: "Hi" }] }],
      etaSeconds: null,
      language: "ja",
    };
    expect(parseServerMessage(JSON.stringify(withWords))).toEqual({ kind: "segments", event: withWords });
    const bad = (over: object) => parseServerMessage(JSON.stringify({ ...SEGMENTS, ...over }));
    expect(bad({ chunkIndex: -1 })).toEqual({ kind: "invalid", reason: 'bad "segments" message' });
    expect(bad({ chunkIndex: 1.5 }).kind).toBe("invalid");
    expect(bad({ segments: [{ start: 0, text: "no end" }] }).kind).toBe("invalid");
    expect(bad({ audioSecondsDone: undefined }).kind).toBe("invalid");
    // A segments message is not mistaken for a status event, and an unknown type is still junk.
    expect(parseServerMessage(JSON.stringify({ type: "mystery", jobId: "j" })).kind).toBe("invalid");
  });
});

const SEGMENTS: SegmentsEvent = {
  type: "segments",
  jobId: "j",
  chunkIndex: 2,
  segments: [
    { start: 120, end: 124.5, text: "Second part." },
    { start: 125, end: 130, text: "And more." },
  ],
  audioSecondsDone: 180,
  audioSecondsTotal: 600,
  etaSeconds: 75,
  language: null,
};

describe("ProgressSocket", () => {
  it("authenticates first, waits for ready, then delivers events", async () => {
    const t = setup();
    t.client.start();
    await flush();
    expect(t.sockets).toHaveLength(1);
    expect(t.sockets[0].url).toBe("ws://h/ws");
    t.sockets[0].open();
    expect(JSON.parse(t.sockets[0].sent[0])).toEqual({ type: "auth", token: "tok-1" });
    expect(t.ready()).toBe(0);
    t.sockets[0].receive({ type: "ready" });
    expect(t.ready()).toBe(1);
    expect(t.client.currentStatus).toBe("open");
    t.sockets[0].receive({ jobId: "j", status: "File uploaded", audioFileUrl: "/api/audio/j" });
    t.sockets[0].receive({ jobId: "j", status: "Mystery" });
    expect(t.events).toEqual([{ jobId: "j", status: "File uploaded", audioFileUrl: "/api/audio/j" }]);
    expect(t.logs.some((l) => l.includes('unknown status "Mystery"'))).toBe(true);
  });

  it("hands live text to onSegments, not to onEvent; without onSegments it is dropped quietly", async () => {
    const t = setup();
    t.client.start();
    await flush();
    t.sockets[0].open();
    t.sockets[0].receive({ type: "ready" });
    t.sockets[0].receive(SEGMENTS);
    t.sockets[0].receive({ ...SEGMENTS, chunkIndex: "x" });
    expect(t.segments).toEqual([SEGMENTS]);
    expect(t.events).toEqual([]);
    expect(t.logs.some((l) => l.includes('bad "segments" message'))).toBe(true);

    const quiet = setup({ onSegments: undefined });
    quiet.client.start();
    await flush();
    quiet.sockets[0].open();
    quiet.sockets[0].receive({ type: "ready" });
    expect(() => quiet.sockets[0].receive(SEGMENTS)).not.toThrow();
    expect(quiet.events).toEqual([]);
  });

  it("reconnects with backoff and calls onReady after each reconnect", async () => {
    const t = setup();
    t.client.start();
    await flush();
    t.sockets[0].drop(1006);
    expect(t.timers.delays()).toEqual([1000]);
    t.timers.fireAll();
    await flush();
    t.sockets[1].drop(1006);
    expect(t.timers.delays()).toEqual([2000]);
    t.timers.fireAll();
    await flush();
    t.sockets[2].drop(1006);
    expect(t.timers.delays()).toEqual([4000]);
    t.timers.fireAll();
    await flush();
    t.sockets[3].open();
    t.sockets[3].receive({ type: "ready" });
    expect(t.ready()).toBe(1);
    // A successful connection resets the backoff.
    t.sockets[3].drop(1001);
    expect(t.timers.delays()).toEqual([1000]);
  });

  it("caps the backoff at 30 s", async () => {
    const t = setup();
    t.client.start();
    await flush();
    for (let i = 0; i < 8; i++) {
      t.sockets[t.sockets.length - 1].drop(1006);
      if (i < 7) {
        t.timers.fireAll();
        await flush();
      }
    }
    expect(t.timers.delays()).toEqual([30000]);
  });

  it("on 4401 refreshes the token before reconnecting", async () => {
    const t = setup();
    t.client.start();
    await flush();
    t.sockets[0].open();
    t.sockets[0].drop(4401);
    expect(t.refreshes()).toBe(0);
    t.timers.fireAll();
    await flush();
    expect(t.refreshes()).toBe(1);
    t.sockets[1].open();
    expect(JSON.parse(t.sockets[1].sent[0])).toEqual({ type: "auth", token: "tok-2" });
  });

  it("stops when the session is gone", async () => {
    const t = setup();
    t.client.start();
    await flush();
    t.logout();
    t.sockets[0].drop(4401);
    t.timers.fireAll();
    await flush();
    expect(t.sockets).toHaveLength(1);
    expect(t.client.currentStatus).toBe("stopped");
  });

  it("stop closes the socket and cancels reconnects", async () => {
    const t = setup();
    t.client.start();
    await flush();
    t.sockets[0].open();
    t.client.stop();
    expect(t.sockets[0].closedWith).toBe(1000);
    expect(t.timers.pending.size).toBe(0);
    // Late callbacks of the old socket are ignored.
    t.sockets[0].receive({ jobId: "j", status: "File uploaded", audioFileUrl: "/x" });
    expect(t.events).toHaveLength(0);
  });

  it("stop during the token lookup opens nothing", async () => {
    const t = setup();
    t.client.start();
    t.client.stop();
    await flush();
    expect(t.sockets).toHaveLength(0);
  });

  it("reconnectNow skips the remaining backoff", async () => {
    const t = setup();
    t.client.start();
    await flush();
    t.sockets[0].drop(1006);
    expect(t.client.currentStatus).toBe("waiting");
    t.client.reconnectNow();
    await flush();
    expect(t.timers.pending.size).toBe(0);
    expect(t.sockets).toHaveLength(2);
  });

  it("a failing token refresh is retried with backoff", async () => {
    const t = setup({
      refreshToken: async () => {
        throw new Error("offline");
      },
    });
    t.client.start();
    await flush();
    t.sockets[0].drop(4401);
    t.timers.fireAll();
    await flush();
    expect(t.sockets).toHaveLength(1);
    expect(t.timers.delays()).toEqual([2000]);
  });
});
