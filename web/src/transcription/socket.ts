/**
 * The progress socket client (server: services/gateway/src/ws/; docs/decisions/0004-progress-fanout.md).
 * Connects to /ws, sends `{"type":"auth","token"}` first, waits for `{"type":"ready"}`, then hands every
 * valid progress event to `onEvent` and every valid live-text message (`{"type":"segments"}`) to `onSegments`. Reconnects with backoff (1 s doubling to 30 s); after every (re)connect `onReady` runs
 * so the screen can read the active job's snapshot and miss nothing. A 4401 close (token missing,
 * invalid or expired) refreshes the token first.
 *
 * No DOM access: the WebSocket constructor, timers and token functions are injected, so the class is
 * unit-tested in node.
 */
import {
  PROGRESS_STATUSES,
  type ProgressEvent,
  progressEventSchema,
  type SegmentsEvent,
  segmentsEventSchema,
  WS_CLOSE_UNAUTHENTICATED,
  type WsClientMessage,
} from "@kikitori/shared";

export const RECONNECT_INITIAL_MS = 1_000;
export const RECONNECT_MAX_MS = 30_000;

/** Delay before reconnect attempt `attempt` (0-based): 1 s, 2 s, 4 s, … capped at 30 s. */
export function reconnectDelay(attempt: number): number {
  return Math.min(RECONNECT_INITIAL_MS * 2 ** Math.max(0, attempt), RECONNECT_MAX_MS);
}

/** The socket URL for the page's origin: ws:// or wss:// to /ws on the same host. */
export function socketUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws`;
}

export type ServerMessage =
  | { kind: "ready" }
  | { kind: "pong" }
  | { kind: "event"; event: ProgressEvent }
  /** Live text: the segments of a finished chunk, with the audio seconds done and the time left. */
  | { kind: "segments"; event: SegmentsEvent }
  /** A status this client does not know (a newer server): only logged. */
  | { kind: "unknown"; status: string }
  | { kind: "invalid"; reason: string };

const KNOWN_STATUSES = new Set<string>(PROGRESS_STATUSES);

/** Parses one text frame from the server. Pure. */
export function parseServerMessage(data: unknown): ServerMessage {
  if (typeof data !== "string") return { kind: "invalid", reason: "not a text frame" };
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return { kind: "invalid", reason: "not JSON" };
  }
  if (typeof raw !== "object" || raw === null) return { kind: "invalid", reason: "not an object" };
  const msg = raw as Record<string, unknown>;
  if (msg.type === "ready") return { kind: "ready" };
  if (msg.type === "pong") return { kind: "pong" };
  if (msg.type === "segments") {
    const parsed = segmentsEventSchema.safeParse(msg);
    if (!parsed.success) return { kind: "invalid", reason: 'bad "segments" message' };
    return { kind: "segments", event: parsed.data };
  }
  if (typeof msg.status !== "string") return { kind: "invalid", reason: "no status" };
  if (!KNOWN_STATUSES.has(msg.status)) return { kind: "unknown", status: msg.status };
  const parsed = progressEventSchema.safeParse(msg);
  if (!parsed.success) return { kind: "invalid", reason: `bad "${msg.status}" message` };
  return { kind: "event", event: parsed.data };
}

/** The part of the browser WebSocket this client uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type SocketStatus = "idle" | "connecting" | "open" | "waiting" | "stopped";

export interface ProgressSocketOptions {
  url: string;
  createSocket: (url: string) => SocketLike;
  /** The current ID token (refreshed when about to expire); null when logged out. */
  getToken: () => Promise<string | null>;
  /** Forces a token refresh after a 4401; null when the session is gone. */
  refreshToken: () => Promise<string | null>;
  onEvent: (event: ProgressEvent) => void;
  /** Live text of a job, chunk by chunk, in chunk order. Without it such messages are dropped. */
  onSegments?: (event: SegmentsEvent) => void;
  /** After every successful (re)connect, once the server said ready. */
  onReady?: () => void;
  onStatus?: (status: SocketStatus) => void;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  log?: (message: string, detail?: unknown) => void;
}

const OPEN = 1;
const NORMAL_CLOSURE = 1000;

export class ProgressSocket {
  private socket: SocketLike | null = null;
  private timer: unknown = null;
  /** Reconnect attempts since the last "ready". */
  private attempt = 0;
  /** Set after a 4401: the next connect uses a freshly refreshed token. */
  private needsRefresh = false;
  private stopped = true;
  private status: SocketStatus = "idle";
  /** Bumped on every connect/stop so late callbacks of an old socket are ignored. */
  private generation = 0;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private readonly log: (message: string, detail?: unknown) => void;

  constructor(private readonly opts: ProgressSocketOptions) {
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
    this.log = opts.log ?? (() => {});
  }

  get currentStatus(): SocketStatus {
    return this.status;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.attempt = 0;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.cancelTimer();
    const s = this.socket;
    this.socket = null;
    if (s) this.detachAndClose(s, NORMAL_CLOSURE, "client stopped");
    this.setStatus("stopped");
  }

  /** Reconnects now instead of waiting out the backoff (e.g. the browser came back online). */
  reconnectNow(): void {
    if (this.stopped || this.status !== "waiting") return;
    this.cancelTimer();
    void this.connect();
  }

  private setStatus(s: SocketStatus): void {
    if (this.status === s) return;
    this.status = s;
    this.opts.onStatus?.(s);
  }

  private async connect(): Promise<void> {
    const gen = ++this.generation;
    this.setStatus("connecting");
    let token: string | null;
    try {
      token = this.needsRefresh ? await this.opts.refreshToken() : await this.opts.getToken();
    } catch (e) {
      if (gen !== this.generation || this.stopped) return;
      this.log("progress socket: token refresh failed", e);
      this.scheduleReconnect();
      return;
    }
    if (gen !== this.generation || this.stopped) return;
    if (!token) {
      // Logged out: nothing to listen to. The screen starts a new client after the next login.
      this.log("progress socket: no session, not connecting");
      this.stopped = true;
      this.setStatus("stopped");
      return;
    }
    this.needsRefresh = false;

    let socket: SocketLike;
    try {
      socket = this.opts.createSocket(this.opts.url);
    } catch (e) {
      this.log("progress socket: could not open", e);
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      if (gen !== this.generation) return;
      const auth: WsClientMessage = { type: "auth", token };
      socket.send(JSON.stringify(auth));
    };
    socket.onmessage = (ev) => {
      if (gen !== this.generation) return;
      this.onMessage(ev.data);
    };
    socket.onerror = () => {
      // A close event always follows; reconnecting happens there.
    };
    socket.onclose = (ev) => {
      if (gen !== this.generation) return;
      this.socket = null;
      if (this.stopped) return;
      if (ev.code === WS_CLOSE_UNAUTHENTICATED) {
        this.log("progress socket: unauthenticated, refreshing the token");
        this.needsRefresh = true;
      } else {
        this.log(`progress socket: closed (${ev.code})`);
      }
      this.scheduleReconnect();
    };
  }

  private onMessage(data: unknown): void {
    const msg = parseServerMessage(data);
    switch (msg.kind) {
      case "ready":
        this.attempt = 0;
        this.setStatus("open");
        this.opts.onReady?.();
        return;
      case "pong":
        return;
      case "event":
        this.opts.onEvent(msg.event);
        return;
      case "segments":
        this.opts.onSegments?.(msg.event);
        return;
      case "unknown":
        this.log(`progress socket: unknown status "${msg.status}"`);
        return;
      case "invalid":
        this.log(`progress socket: ignored message (${msg.reason})`, data);
        return;
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    this.cancelTimer();
    const delay = reconnectDelay(this.attempt);
    this.attempt++;
    this.setStatus("waiting");
    this.timer = this.setTimer(() => {
      this.timer = null;
      void this.connect();
    }, delay);
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
  }

  private detachAndClose(s: SocketLike, code: number, reason: string): void {
    s.onopen = null;
    s.onmessage = null;
    s.onclose = null;
    s.onerror = null;
    try {
      // Closing a socket that is still connecting is allowed; the browser logs a warning at most.
      if (s.readyState <= OPEN) s.close(code, reason);
    } catch {
      /* already closed */
    }
  }
}
