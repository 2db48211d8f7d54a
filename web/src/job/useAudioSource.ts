import { useEffect, useState } from "react";
import { isApiError } from "../api/errors.ts";
import { fetchAudio } from "../transcription/api.ts";

export type AudioSource =
  | { status: "none" }
  | { status: "loading" }
  | { status: "ready"; src: string }
  | { status: "expired" }
  | { status: "error" };

/**
 * The stored audio needs the bearer header, so it is fetched into a Blob URL for the player. The
 * Blob URL is revoked when the URL changes or the screen goes away. 410 AUDIO_EXPIRED → "expired".
 */
export function useAudioSource(url: string | null): AudioSource {
  // Keyed by URL, so a render for a new URL never shows the previous (about to be revoked) Blob URL.
  const [state, setState] = useState<{ url: string; source: AudioSource } | null>(null);

  useEffect(() => {
    if (!url) return;
    const ctrl = new AbortController();
    let objectUrl: string | null = null;
    setState({ url, source: { status: "loading" } });
    fetchAudio(url, ctrl.signal)
      .then((blob) => {
        if (ctrl.signal.aborted) return;
        objectUrl = URL.createObjectURL(blob);
        setState({ url, source: { status: "ready", src: objectUrl } });
      })
      .catch((e: unknown) => {
        if (ctrl.signal.aborted) return;
        if (isApiError(e) && (e.code === "AUDIO_EXPIRED" || e.status === 410)) {
          setState({ url, source: { status: "expired" } });
        } else {
          console.warn("Audio could not be loaded", e);
          setState({ url, source: { status: "error" } });
        }
      });
    return () => {
      ctrl.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url]);

  if (!url) return { status: "none" };
  if (!state || state.url !== url) return { status: "loading" };
  return state.source;
}
