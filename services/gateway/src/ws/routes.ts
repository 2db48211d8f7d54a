import {
  AppError,
  WS_AUTH_TIMEOUT_MS,
  WS_CLOSE_UNAUTHENTICATED,
  type WsServerMessage,
  wsClientMessageSchema,
} from "@kikitori/shared";
import type { FastifyPluginAsync } from "fastify";
import type { TokenSigner } from "../auth/tokens.ts";
import type { SocketHub } from "./hub.ts";

const HEARTBEAT_MS = 30_000;
/** Close code for a socket over the per-user cap (the client should not reconnect at once). */
export const WS_CLOSE_TOO_MANY = 4429;

/**
 * GET /ws: the client's first message must be {"type":"auth","token":idToken} within 5 s, else the
 * socket closes with 4401. Then the server answers {"type":"ready"} and pushes the user's updates.
 * The socket ends (4401) with the session it was opened with: when its token expires, and through the
 * hub when that login ends (logout, a revoked session, password change, account deletion).
 */
export const wsRoutes: FastifyPluginAsync<{ signer: TokenSigner; hub: SocketHub; maxPerUser?: number }> = async (
  app,
  { signer, hub, maxPerUser = 10 },
) => {
  // A plain GET (no upgrade) gets a 404 in the error shape, not the plugin's empty one.
  const upgradeOnly = async (req: { headers: Record<string, string | string[] | undefined> }) => {
    if (String(req.headers.upgrade ?? "").toLowerCase() !== "websocket") {
      throw new AppError("NOT_FOUND", "GET /ws takes WebSocket connections only");
    }
  };
  app.get("/ws", { websocket: true, schema: { hide: true }, onRequest: upgradeOnly }, (socket, req) => {
    let userId: string | null = null;
    /** Set by the first auth frame, before its token is checked: one socket binds to one user only. */
    let authStarted = false;
    let alive = true;
    const send = (m: WsServerMessage) => socket.send(JSON.stringify(m));
    const timer = setTimeout(() => {
      if (!userId) socket.close(WS_CLOSE_UNAUTHENTICATED, "authentication timeout");
    }, WS_AUTH_TIMEOUT_MS);
    let token: string | null = null;
    let expiry: NodeJS.Timeout | undefined;
    const endSession = (reason: string) => {
      if (socket.readyState === socket.OPEN) socket.close(WS_CLOSE_UNAUTHENTICATED, reason);
    };
    const heartbeat = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
      // A login ended on another gateway (logout, revoked session) ends this socket too: its token is
      // checked again, as on every request. Redis briefly down keeps it open (the expiry still holds).
      if (token) {
        signer.verify(token).catch((err) => {
          if (!(err instanceof AppError && err.code === "SERVICE_UNAVAILABLE")) endSession("session ended");
        });
      }
    }, HEARTBEAT_MS);
    socket.on("pong", () => {
      alive = true;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      clearTimeout(expiry);
      clearInterval(heartbeat);
    });
    socket.on("message", async (raw: Buffer) => {
      let msg: ReturnType<typeof wsClientMessageSchema.parse>;
      try {
        msg = wsClientMessageSchema.parse(JSON.parse(raw.toString("utf8")));
      } catch {
        if (!userId) socket.close(WS_CLOSE_UNAUTHENTICATED, "expected an auth message");
        return;
      }
      if (msg.type === "ping") return send({ type: "pong" });
      // Only the first auth frame counts, even while its token is still being checked: a second one
      // (same or other user) is ignored, so a socket never binds to two users.
      if (authStarted) return;
      authStarted = true;
      try {
        const claims = await signer.verify(msg.token);
        if (socket.readyState !== socket.OPEN) return;
        if (hub.count(claims.sub) >= maxPerUser) {
          clearTimeout(timer);
          socket.close(WS_CLOSE_TOO_MANY, "too many sockets for this user");
          return;
        }
        userId = claims.sub;
        token = msg.token;
        clearTimeout(timer);
        hub.add(userId, socket, { sid: claims.sid });
        // The socket lives no longer than the token it was opened with (the client refreshes on 4401).
        if (claims.expiresAtMs !== undefined) {
          const left = Math.min(Math.max(claims.expiresAtMs - Date.now(), 0), 2 ** 31 - 1);
          expiry = setTimeout(() => endSession("token expired"), left);
        }
        req.log.debug({ uid: userId }, "socket authenticated");
        send({ type: "ready" });
      } catch {
        socket.close(WS_CLOSE_UNAUTHENTICATED, "invalid token");
      }
    });
  });
};
