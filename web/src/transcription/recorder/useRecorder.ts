/**
 * The recorder's state: a kept recording offered on load, recording with pauses, the parts to play back
 * and transcribe. Each Record or Resume recording is one recorder session, kept as its own part; parts
 * in WebM are joined into the whole recording, which is what is transcribed unless a part is chosen.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { extensionFor, fileTypeFor, nearLimit, pickMimeType, recordingFileName, totalSeconds } from "./recording.ts";
import { holdRecordingLock, type KeptRecording, RecordingStore } from "./recordingStore.ts";
import { canRecord, type RecorderProblem, RecorderSession, RecorderStartError } from "./session.ts";
import { joinWebm } from "./webm-join.ts";

export type RecorderPhase = "loading" | "idle" | "kept" | "starting" | "recording" | "paused" | "stopped";

/** What the recorder tells the user besides its phase. */
export type RecorderNotice = RecorderProblem | "limitReached" | "keepFailed";

/** One part, or the whole recording (its parts joined), ready to play back and transcribe. */
export interface Take {
  /** The part's number in the store; -1 for the whole recording. */
  index: number;
  /** The parts joined into one file. */
  whole: boolean;
  /** 1-based, as shown ("Part 2"). */
  number: number;
  file: File;
  url: string;
  seconds: number;
  /** Accepted for transcription (and no longer kept in the browser). */
  sent: boolean;
}

/**
 * The parts to play back and transcribe; with several WebM parts that join, the whole recording first
 * (named without a part number). Ogg and MP4 parts, and parts that do not join, stay parts only.
 */
async function makeTakes(rec: KeptRecording, blobs: { index: number; blob: Blob }[], label: string): Promise<Take[]> {
  const several = blobs.length > 1;
  const type = fileTypeFor(rec.mimeType);
  const take = (index: number, number: number, data: BlobPart, name: string, seconds: number): Take => {
    const file = new File([data], name, { type, lastModified: Date.now() });
    return { index, whole: index < 0, number, file, url: URL.createObjectURL(file), seconds, sent: false };
  };
  const nameOf = (part?: number) => recordingFileName(label, new Date(rec.startedAt), rec.mimeType, part);
  const parts = blobs.map(({ index, blob }, i) => {
    const seconds = (rec.parts.find((p) => p.index === index)?.durationMs ?? 0) / 1000;
    return take(index, i + 1, blob, nameOf(several ? i + 1 : undefined), seconds);
  });
  if (!several || extensionFor(rec.mimeType) !== "webm") return parts;
  const joined = joinWebm(await Promise.all(blobs.map(({ blob }) => blob.arrayBuffer())));
  if (!joined) return parts;
  const seconds = parts.reduce((sum, p) => sum + p.seconds, 0);
  return [take(-1, 0, joined, nameOf(), seconds), ...parts];
}

/**
 * The take chosen after Stop: the whole recording when there is one, else the last part. ("Transcribe
 * what was kept" chooses the first take: the whole recording, or the first part as before.)
 */
export function firstChoice(takes: Take[]): number {
  return takes[0]?.whole ? 0 : Math.max(0, takes.length - 1);
}

/**
 * The takes once `take` was accepted: after the whole recording, all of them are sent; after a part,
 * that part is, and the whole recording is no longer offered (it would transcribe that part again).
 */
export function takesAfterSent(takes: Take[], take: Take): { takes: Take[]; selected: number } {
  if (take.whole) return { takes: takes.map((t) => ({ ...t, sent: true })), selected: takes.indexOf(take) };
  const rest = takes.filter((t) => !t.whole).map((t) => (t === take ? { ...t, sent: true } : t));
  return {
    takes: rest,
    selected: Math.max(
      0,
      rest.findIndex((t) => t.index === take.index),
    ),
  };
}

function newRecording(): KeptRecording {
  const id = typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
  const mimeType = canRecord() ? (pickMimeType((t) => MediaRecorder.isTypeSupported(t)) ?? "") : "";
  return { id, startedAt: Date.now(), mimeType, state: "recording", parts: [], bytes: 0, updatedAt: Date.now() };
}

/**
 * After Stop: the recording is marked stopped with this part's length, and its parts are the earlier
 * ones from the store and this session's from memory. A recording left with nothing is dropped.
 */
async function takesAfterStop(
  store: RecordingStore | null,
  from: KeptRecording,
  stopped: { part: number; durationMs: number; chunks: Blob[] },
  label: string,
): Promise<Take[]> {
  const { part, durationMs, chunks } = stopped;
  const parts = [...from.parts.filter((p) => p.index !== part), { index: part, durationMs }];
  const rec = { ...from, state: "stopped" as const, parts };
  void store?.update(rec.id, (r) => ({ ...r, state: "stopped", parts })).catch(() => undefined);
  const earlier = store && parts.length > 1 ? await store.parts(rec).catch(() => []) : [];
  const blobs = earlier.filter((b) => b.index !== part);
  if (chunks.length > 0) blobs.push({ index: part, blob: new Blob(chunks, { type: rec.mimeType }) });
  if (blobs.length === 0) void store?.remove(rec.id).catch(() => undefined);
  return makeTakes(rec, blobs, label);
}

/** A ref holding the value of the latest render (read by callbacks made earlier). */
function useLatest<T>(value: T) {
  const ref = useRef(value);
  ref.current = value;
  return ref;
}

export function useRecorder(fileLabel: string, maxUploadBytes: number) {
  // The plan's upload limit: a recording past the single upload's 20 MB goes up resumably.
  const limit = useLatest(maxUploadBytes);
  const [phase, setPhase] = useState<RecorderPhase>("loading");
  const [notice, setNotice] = useState<RecorderNotice | null>(canRecord() ? null : "unsupported");
  const [kept, setKept] = useState<KeptRecording | null>(null);
  const [takes, setTakes] = useState<Take[]>([]);
  const [selected, setSelected] = useState(0);
  const [elapsed, setElapsed] = useState(0);
  const store = useRef<RecordingStore | null>(null);
  const session = useRef<RecorderSession | null>(null);
  const mounted = useRef(true);
  const current = useRef<{ rec: KeptRecording; part: number; baseMs: number } | null>(null);
  const label = useLatest(fileLabel);

  useOpenStore(store, setKept, setPhase);
  useElapsed(phase, session, current, setElapsed);
  useWhileRecording(phase === "recording" || phase === "paused" || phase === "starting");
  useRevokeOnChange(takes);
  const showTakes = useCallback((ts: Take[], selected: number, seconds: number) => {
    setKept(null);
    setTakes(ts);
    setSelected(selected);
    setElapsed(seconds);
    setPhase(ts.length > 0 ? "stopped" : "idle");
  }, []);

  const start = useCallback(
    async (from?: KeptRecording) => {
      setNotice(null);
      setPhase("starting");
      const rec = from ? { ...from, state: "recording" as const } : newRecording();
      const part = rec.parts.reduce((n, p) => Math.max(n, p.index + 1), 0);
      const baseMs = totalSeconds(rec.parts) * 1000;
      const release = holdRecordingLock(rec.id);
      let s: RecorderSession;
      try {
        s = await RecorderSession.start({ store: store.current, id: rec.id, part }, rec.mimeType || null, {
          onChunk: (bytes) => {
            if (!nearLimit(bytes, limit.current)) return;
            setNotice("limitReached");
            session.current?.stop();
          },
          onKeepFailed: () => setNotice("keepFailed"),
          onStop: (chunks) => {
            release();
            session.current = null;
            const durationMs = s.elapsedMs();
            void takesAfterStop(store.current, rec, { part, durationMs, chunks }, label.current).then((ts) =>
              showTakes(ts, firstChoice(ts), (baseMs + durationMs) / 1000),
            );
          },
        });
      } catch (err) {
        release();
        setNotice(err instanceof RecorderStartError ? err.problem : "failed");
        setPhase(from ? "kept" : "idle");
        return;
      }
      // The screen was left while the browser asked for the microphone: nothing is recorded.
      if (!mounted.current) return s.stop();
      rec.mimeType ||= s.mimeType || "audio/webm";
      session.current = s;
      current.current = { rec, part, baseMs };
      setKept(null);
      setElapsed(baseMs / 1000);
      if (from) void store.current?.update(rec.id, (r) => ({ ...r, state: "recording" })).catch(() => undefined);
      else void store.current?.create(rec).catch(() => setNotice("keepFailed"));
      setPhase("recording");
    },
    [showTakes, limit, label],
  );

  const controls = useSessionControls(session, mounted, setPhase);

  /** "Transcribe what was kept": the kept parts become the recording to play back and transcribe. */
  const takeKept = useCallback(async () => {
    if (!kept || !store.current) return;
    const blobs = await store.current.parts(kept).catch(() => []);
    current.current = { rec: kept, part: -1, baseMs: totalSeconds(kept.parts) * 1000 };
    void store.current.update(kept.id, (r) => ({ ...r, state: "stopped" })).catch(() => undefined);
    showTakes(await makeTakes(kept, blobs, label.current), 0, totalSeconds(kept.parts));
  }, [kept, showTakes, label]);

  /** Forgets the recording (a kept one or the one just made) in memory and in the browser's storage. */
  const discard = useCallback(() => {
    const id = kept?.id ?? current.current?.rec.id;
    if (id) void store.current?.remove(id).catch(() => undefined);
    current.current = null;
    setNotice(canRecord() ? null : "unsupported");
    showTakes([], 0, 0);
  }, [kept, showTakes]);

  const markSent = useMarkSent(takes, store, current, setTakes, setSelected);

  return {
    ...controls,
    phase,
    notice,
    kept,
    takes,
    selected,
    setSelected,
    elapsed,
    start,
    takeKept,
    discard,
    markSent,
  };
}

/** The whole recording or a part was accepted for transcription: it is no longer kept in the browser. */
function useMarkSent(
  takes: Take[],
  store: { current: RecordingStore | null },
  current: { current: { rec: KeptRecording } | null },
  setTakes: (takes: Take[]) => void,
  setSelected: (selected: number) => void,
) {
  return useCallback(
    (file: File) => {
      const take = takes.find((t) => t.file === file);
      const id = current.current?.rec.id;
      if (!take || take.sent || !id) return;
      const kept = store.current;
      void (take.whole ? kept?.remove(id) : kept?.removePart(id, take.index))?.catch(() => undefined);
      const next = takesAfterSent(takes, take);
      setTakes(next.takes);
      setSelected(next.selected);
    },
    [takes, store, current, setTakes, setSelected],
  );
}

/** Pause, Resume and Stop of the running session, and its level for the meter. */
function useSessionControls(
  session: { current: RecorderSession | null },
  mounted: { current: boolean },
  setPhase: (phase: RecorderPhase) => void,
) {
  const pause = useCallback(() => {
    session.current?.pause();
    setPhase("paused");
  }, [session, setPhase]);
  const resume = useCallback(() => {
    session.current?.resume();
    setPhase("recording");
  }, [session, setPhase]);
  const stop = useCallback(() => session.current?.stop(), [session]);
  const level = useCallback(() => session.current?.level() ?? 0, [session]);
  // Leaving the screen mid-recording lets go of the microphone; what was recorded stays kept.
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      session.current?.stop();
    };
  }, [session, mounted]);
  return { pause, resume, stop, level };
}

/** Opens the store on mount and offers the newest kept recording; the store closes on unmount. */
function useOpenStore(
  store: { current: RecordingStore | null },
  setKept: (rec: KeptRecording | null) => void,
  setPhase: (phase: RecorderPhase) => void,
) {
  useEffect(() => {
    let live = true;
    void (async () => {
      const opened = await RecordingStore.open();
      if (!live) return opened?.close();
      store.current = opened;
      const rec = await opened?.latest().catch(() => null);
      if (!live) return;
      setKept(rec ?? null);
      setPhase(rec && rec.parts.length > 0 ? "kept" : "idle");
      // A recording cut before its first chunk holds nothing: it is dropped.
      if (rec && rec.parts.length === 0) void opened?.remove(rec.id).catch(() => undefined);
    })();
    return () => {
      live = false;
    };
  }, [store, setKept, setPhase]);
}

/** The elapsed time, across earlier parts, four times a second while a session runs. */
function useElapsed(
  phase: RecorderPhase,
  session: { current: RecorderSession | null },
  current: { current: { baseMs: number } | null },
  setElapsed: (seconds: number) => void,
) {
  useEffect(() => {
    if (phase !== "recording" && phase !== "paused") return;
    const tick = () => {
      const s = session.current;
      if (s) setElapsed(((current.current?.baseMs ?? 0) + s.elapsedMs()) / 1000);
    };
    tick();
    const timer = setInterval(tick, 250);
    return () => clearInterval(timer);
  }, [phase, session, current, setElapsed]);
}

/**
 * While recording: the screen stays on (Screen Wake Lock, where the browser has it; taken again when
 * the tab comes back), and leaving the page asks first.
 */
function useWhileRecording(active: boolean) {
  useEffect(() => {
    if (!active) return;
    let lock: WakeLockSentinel | null = null;
    let live = true;
    const acquire = () => {
      if (document.visibilityState !== "visible" || !navigator.wakeLock) return;
      navigator.wakeLock
        .request("screen")
        .then((l) => {
          if (live) lock = l;
          else void l.release();
        })
        .catch(() => undefined);
    };
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    acquire();
    document.addEventListener("visibilitychange", acquire);
    window.addEventListener("beforeunload", warn);
    return () => {
      live = false;
      document.removeEventListener("visibilitychange", acquire);
      window.removeEventListener("beforeunload", warn);
      void lock?.release().catch(() => undefined);
    };
  }, [active]);
}

/** The object URLs of parts no longer shown are let go (all of them when the recorder goes). */
function useRevokeOnChange(takes: Take[]) {
  const shown = useRef<Take[]>([]);
  useEffect(() => {
    const still = new Set(takes.map((t) => t.url));
    for (const t of shown.current) if (!still.has(t.url)) URL.revokeObjectURL(t.url);
    shown.current = takes;
  }, [takes]);
  useEffect(
    () => () => {
      for (const t of shown.current) URL.revokeObjectURL(t.url);
    },
    [],
  );
}
