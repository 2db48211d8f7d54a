import type { ProgressEnvelope, WsServerMessage } from "@kikitori/shared";
import type { WebSocket } from "ws";

/** The sockets of this gateway, by user. Updates from pub/sub go to the owner's sockets only. */
export class SocketHub {
  private readonly byUser = new Map<string, Set<WebSocket>>();

  add(userId: string, socket: WebSocket): void {
    let set = this.byUser.get(userId);
    if (!set) {
      set = new Set();
      this.byUser.set(userId, set);
    }
    set.add(socket);
    socket.once("close", () => this.remove(userId, socket));
  }

  remove(userId: string, socket: WebSocket): void {
    const set = this.byUser.get(userId);
    if (!set) return;
    set.delete(socket);
    if (set.size === 0) this.byUser.delete(userId);
  }

  /** Open sockets of one user on this gateway. */
  count(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  /** Returns how many sockets got the message. */
  deliver(envelope: ProgressEnvelope): number {
    const set = this.byUser.get(envelope.userId);
    if (!set) return 0;
    const data = JSON.stringify(envelope.event satisfies WsServerMessage);
    let n = 0;
    for (const s of set) {
      if (s.readyState === s.OPEN) {
        s.send(data);
        n++;
      }
    }
    return n;
  }

  closeUser(userId: string, code = 4401, reason = "account deleted"): void {
    for (const s of this.byUser.get(userId) ?? []) s.close(code, reason);
  }

  closeAll(code = 1001, reason = "server shutting down"): void {
    for (const set of this.byUser.values()) for (const s of set) s.close(code, reason);
  }

  get size(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
  }
}
