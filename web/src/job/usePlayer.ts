import { type RefObject, useCallback, useEffect, useRef, useState } from "react";

/** Seconds ← and → jump. */
export const SKIP_SECONDS = 5;

/** Playback speeds offered (the pitch is kept). */
export const PLAYBACK_RATES = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2] as const;
const RATE_KEY = "kikitori.playbackRate";

/** The speed the user chose last (kept in this browser), 1 when none or not one of PLAYBACK_RATES. */
export function storedRate(storage: Pick<Storage, "getItem"> | null): number {
  const v = Number(storage?.getItem(RATE_KEY));
  return (PLAYBACK_RATES as readonly number[]).includes(v) ? v : 1;
}

const localStore = (): Storage | null => {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
};

type Chord = Pick<KeyboardEvent, "ctrlKey" | "altKey" | "metaKey" | "key" | "code">;

/**
 * Ctrl+Space: plays or pauses wherever the focus is, also while typing in the transcript or interview.
 * Alt+Space does the same where the system takes Ctrl+Space (macOS switches the input source with it).
 */
export function isPlayPauseChord(e: Chord): boolean {
  const space = e.key === " " || e.code === "Space";
  return space && !e.metaKey && e.ctrlKey !== e.altKey;
}

/**
 * Ctrl+, (comma): back 5 s wherever the focus is, also while typing. Not Ctrl+← (a word back in text
 * fields) nor Alt+← (the browser's Back); Ctrl+, means nothing to browsers or text fields. oTranscribe
 * uses F1 for this, which opens the browser's help in some.
 */
export function isBackChord(e: Chord): boolean {
  return e.ctrlKey && !e.altKey && !e.metaKey && (e.key === "," || e.code === "Comma");
}

/** Index of the segment playing at `time`: the last one starting at or before it (-1 before the first). */
export function activeSegment(starts: readonly number[], time: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] <= time + 0.05) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Whether a key press belongs to a field or control (typing a space there must not pause the audio). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return ["INPUT", "TEXTAREA", "SELECT", "BUTTON", "A", "AUDIO", "SUMMARY"].includes(target.tagName);
}

export interface Player {
  ref: RefObject<HTMLAudioElement | null>;
  /** The <audio> element's ref callback. */
  attach: (el: HTMLAudioElement | null) => void;
  time: number;
  playing: boolean;
  seek: (seconds: number) => void;
  /** Seeks and plays from there. */
  play: (seconds: number) => void;
  /** Plays from `start` and pauses at `end` (a quote's span). */
  playSpan: (start: number, end: number) => void;
  toggle: () => void;
  /** Whether an <audio> element is attached. */
  ready: boolean;
  /** Playback speed (PLAYBACK_RATES), kept for the next visit. */
  rate: number;
  setRate: (rate: number) => void;
}

/**
 * Where a span's playback stops (a quote's end; null: none): while it plays, its end is watched every
 * frame (timeupdate comes only about 4 times a second). Playing from elsewhere forgets it.
 */
function useSpanStop(audio: HTMLAudioElement | null, playing: boolean) {
  const [stopAt, setStopAt] = useState<number | null>(null);
  // A seek far past the end (the user moved on) forgets it without pausing.
  useEffect(() => {
    if (!audio || !playing || stopAt === null) return;
    let frame = 0;
    const check = () => {
      if (audio.currentTime >= stopAt) {
        setStopAt(null);
        if (audio.currentTime < stopAt + 1) audio.pause();
        return;
      }
      frame = requestAnimationFrame(check);
    };
    frame = requestAnimationFrame(check);
    return () => cancelAnimationFrame(frame);
  }, [audio, playing, stopAt]);
  return setStopAt;
}

/**
 * The audio player's state for the job page: the position (from timeupdate), playing or not, seeking
 * and play/pause; and (unless `keys` is false) the page's keys: space plays or pauses, ← and → jump
 * 5 s (not while typing); Ctrl+Space (or Alt+Space) plays or pauses and Ctrl+, jumps back 5 s
 * wherever the focus is.
 */
export function usePlayer(enabled: boolean, opts: { keys?: boolean } = {}): Player {
  const keys = opts.keys ?? true;
  const ref = useRef<HTMLAudioElement | null>(null);
  const [audio, setAudio] = useState<HTMLAudioElement | null>(null);
  const attach = useCallback((el: HTMLAudioElement | null) => {
    ref.current = el;
    setAudio(el);
  }, []);
  const [time, setTime] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [rate, setRateState] = useState(() => storedRate(localStore()));
  const setRate = useCallback((next: number) => {
    setRateState(next);
    try {
      localStore()?.setItem(RATE_KEY, String(next));
    } catch {}
  }, []);

  // The chosen speed applies to the element, and again after a new source resets it.
  useEffect(() => {
    if (!audio) return;
    const apply = () => {
      audio.playbackRate = rate;
    };
    apply();
    audio.addEventListener("loadedmetadata", apply);
    return () => audio.removeEventListener("loadedmetadata", apply);
  }, [audio, rate]);

  const seek = useCallback((seconds: number) => {
    const audio = ref.current;
    if (!audio) return;
    const end = Number.isFinite(audio.duration) ? audio.duration : Number.POSITIVE_INFINITY;
    audio.currentTime = Math.max(0, Math.min(seconds, end));
    setTime(audio.currentTime);
  }, []);

  const setStopAt = useSpanStop(audio, playing);

  const play = useCallback(
    (seconds: number) => {
      setStopAt(null);
      seek(seconds);
      void ref.current?.play().catch(() => undefined);
    },
    [seek, setStopAt],
  );

  const playSpan = useCallback(
    (start: number, end: number) => {
      play(start);
      setStopAt(end);
    },
    [play, setStopAt],
  );

  const toggle = useCallback(() => {
    const audio = ref.current;
    if (!audio) return;
    if (audio.paused) void audio.play().catch(() => undefined);
    else audio.pause();
  }, []);

  // The element appears once the audio is loaded: follow it from then on.
  useEffect(() => {
    if (!enabled || !audio) return;
    const onTime = () => setTime(audio.currentTime);
    const onPlay = () => setPlaying(true);
    const onPause = () => setPlaying(false);
    audio.addEventListener("timeupdate", onTime);
    audio.addEventListener("seeked", onTime);
    audio.addEventListener("play", onPlay);
    audio.addEventListener("pause", onPause);
    audio.addEventListener("ended", onPause);
    return () => {
      audio.removeEventListener("timeupdate", onTime);
      audio.removeEventListener("seeked", onTime);
      audio.removeEventListener("play", onPlay);
      audio.removeEventListener("pause", onPause);
      audio.removeEventListener("ended", onPause);
    };
  }, [enabled, audio]);

  useEffect(() => {
    if (!enabled || !keys) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      if (isPlayPauseChord(e)) {
        if (!ref.current) return;
        e.preventDefault();
        toggle();
        return;
      }
      if (isBackChord(e)) {
        if (!ref.current) return;
        e.preventDefault();
        seek(ref.current.currentTime - SKIP_SECONDS);
        return;
      }
      if (e.altKey || e.ctrlKey || e.metaKey || isTypingTarget(e.target)) return;
      const audio = ref.current;
      if (!audio) return;
      if (e.key === " " || e.code === "Space") {
        e.preventDefault();
        toggle();
      } else if (e.key === "ArrowLeft") {
        e.preventDefault();
        seek(audio.currentTime - SKIP_SECONDS);
      } else if (e.key === "ArrowRight") {
        e.preventDefault();
        seek(audio.currentTime + SKIP_SECONDS);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [enabled, keys, seek, toggle]);

  return { ref, attach, time, playing, seek, play, playSpan, toggle, ready: audio !== null, rate, setRate };
}
