import type { ProgressEvent, SegmentsEvent } from "@kikitori/shared";
import { useEffect, useLayoutEffect, useRef } from "react";
import { sessionManager } from "../auth/session-instance.ts";
import { ProgressSocket, type SocketLike, socketUrl } from "./socket.ts";

export interface ProgressSocketHandlers {
  onEvent: (event: ProgressEvent) => void;
  /** Live text of a job (the segments of one finished chunk). */
  onSegments?: (event: SegmentsEvent) => void;
  /** After every (re)connect: read the active job's snapshot so no update is missed. */
  onReady?: () => void;
}

/**
 * Keeps one progress socket open while `uid` is set (logged in). Handlers may change on every render;
 * the socket is only replaced when the user changes. Its connection state is not kept here: nobody
 * renders it, and keeping it would re-render the whole screen on every reconnect.
 */
export function useProgressSocket(uid: string | null | undefined, handlers: ProgressSocketHandlers): void {
  const handlersRef = useRef(handlers);
  useLayoutEffect(() => {
    handlersRef.current = handlers;
  });
  useEffect(() => {
    if (!uid) return;
    const client = new ProgressSocket({
      url: socketUrl(window.location),
      createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
      getToken: () => sessionManager.getValidIdToken(),
      refreshToken: async () => (await sessionManager.refreshNow())?.idToken ?? null,
      onEvent: (e) => handlersRef.current.onEvent(e),
      onSegments: (e) => handlersRef.current.onSegments?.(e),
      onReady: () => handlersRef.current.onReady?.(),
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
}
