import {
  WS_AUTH_TIMEOUT_MS,
  WS_CLOSE_UNAUTHENTICATED,
  type WsServerMessage,
  wsClientMessageSchema,
} from "@kikitori/shared";
import type { FastifyPluginAsync } from "fastify";
import type { TokenSigner } from "../auth/tokens.ts";
import type { SocketHub } from "./hub.ts";

const HEARTBEAT_MS = 30_000;

/**
 * GET /ws: the client's first message must be {"type":"auth","token":idToken} within 5 s, else the
 * socket closes with 4401. Then the server answers {"type":"ready"} and pushes the user's updates.
 */
export const wsRoutes: FastifyPluginAsync<{ signer: TokenSigner; hub: SocketHub }> = async (app, { signer, hub }) => {
  app.get("/ws", { websocket: true, schema: { hide: true } }, (socket, req) => {
    let userId: string | null = null;
    let alive = true;
    const send = (m: WsServerMessage) => socket.send(JSON.stringify(m));
    const timer = setTimeout(() => {
      if (!userId) socket.close(WS_CLOSE_UNAUTHENTICATED, "authentication timeout");
    }, WS_AUTH_TIMEOUT_MS);
    const heartbeat = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, HEARTBEAT_MS);
    socket.on("pong", () => {
      alive = true;
    });
    socket.on("close", () => {
      clearTimeout(timer);
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
      if (userId) return; // already authenticated; a second auth is ignored
      try {
        const claims = await signer.verify(msg.token);
        userId = claims.sub;
        clearTimeout(timer);
        hub.add(userId, socket);
        req.log.debug({ uid: userId }, "socket authenticated");
        send({ type: "ready" });
      } catch {
        socket.close(WS_CLOSE_UNAUTHENTICATED, "invalid token");
      }
    });
  });
};
