import type { ProgressEnvelope, WsServerMessage } from "@kikitori/shared";
import { WS_CLOSE_UNAUTHENTICATED } from "@kikitori/shared";
import type { WebSocket } from "ws";

/** What a socket was authenticated with: the login (session id) its token belongs to. */
export interface SocketSession {
  /** The refresh-token family of the login; logout or a revoked family closes its sockets. */
  sid?: string;
}

/** The sockets of this gateway, by user. Updates from pub/sub go to the owner's sockets only. */
export class SocketHub {
  private readonly byUser = new Map<string, Map<WebSocket, SocketSession>>();

  add(userId: string, socket: WebSocket, session: SocketSession = {}): void {
    let set = this.byUser.get(userId);
    if (!set) {
      set = new Map();
      this.byUser.set(userId, set);
    }
    set.set(socket, session);
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
    for (const s of set.keys()) {
      if (s.readyState === s.OPEN) {
        s.send(data);
        n++;
      }
    }
    return n;
  }

  /**
   * The one way a socket ends with its session (4401, the client logs in again): every socket of the
   * user (password change or reset, account deletion), or with `sid` only those of one login (logout,
   * a revoked refresh-token family). Returns how many sockets were closed.
   */
  closeUser(userId: string, code = WS_CLOSE_UNAUTHENTICATED, reason = "account deleted", sid?: string): number {
    let n = 0;
    for (const [s, session] of this.byUser.get(userId) ?? []) {
      if (sid !== undefined && session.sid !== sid) continue;
      s.close(code, reason);
      n++;
    }
    return n;
  }

  closeAll(code = 1001, reason = "server shutting down"): void {
    for (const set of this.byUser.values()) for (const s of set.keys()) s.close(code, reason);
  }

  get size(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
  }
}
