import type { ProgressEvent } from "@kikitori/shared";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { sessionManager } from "../auth/session-instance.ts";
import { ProgressSocket, type SocketLike, type SocketStatus, socketUrl } from "./socket.ts";

export interface ProgressSocketHandlers {
  onEvent: (event: ProgressEvent) => void;
  /** After every (re)connect: read the active job's snapshot so no update is missed. */
  onReady?: () => void;
}

/**
 * Keeps one progress socket open while `uid` is set (logged in). Handlers may change on every render;
 * the socket is only replaced when the user changes.
 */
export function useProgressSocket(uid: string | null | undefined, handlers: ProgressSocketHandlers): SocketStatus {
  const handlersRef = useRef(handlers);
  useLayoutEffect(() => {
    handlersRef.current = handlers;
  });
  const [status, setStatus] = useState<SocketStatus>("idle");

  useEffect(() => {
    if (!uid) {
      setStatus("idle");
      return;
    }
    const client = new ProgressSocket({
      url: socketUrl(window.location),
      createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
      getToken: () => sessionManager.getValidIdToken(),
      refreshToken: async () => (await sessionManager.refreshNow())?.idToken ?? null,
      onEvent: (e) => handlersRef.current.onEvent(e),
      onReady: () => handlersRef.current.onReady?.(),
      onStatus: setStatus,
      log: (message, detail) => console.info(message, detail ?? ""),
    });
    client.start();
    const onOnline = () => client.reconnectNow();
    window.addEventListener("online", onOnline);
    return () => {
      window.removeEventListener("online", onOnline);
      client.stop();
    };
  }, [uid]);

  return status;
}
