/**
 * The job side of the transcription screen: the reducer state, snapshot reads, the progress socket,
 * the upload, retry, opening a recent job and following a job that is still running.
 */
import type { ProgressEvent, SegmentsEvent, TranscriptionSnapshot } from "@kikitori/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type RefObject, useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from "react";
import { isApiError } from "../api/errors.ts";
import { refetchAfterWrite } from "../api/refetch.ts";
import { useLang } from "../routing/useLang.ts";
import { getSnapshot, listRecent, retryJob, uploadAudio } from "./api.ts";
import { activeJobStore, runningJob } from "./form.ts";
import type { Notice } from "./NoticeBox.tsx";
import {
  effectsOf,
  initialTranscriptionState,
  type JobError,
  type TranscriptionAction,
  type TranscriptionState,
  transcriptionReducer,
} from "./progress.ts";
import { useProgressSocket } from "./useProgressSocket.ts";
import { SPEECH_QUERY_KEY } from "./useSpeechStatus.ts";

const recentKey = (uid: string) => ["transcriptions", uid] as const;

/** The fields of an upload besides the file and the languages. */
export type UploadFields = Parameters<typeof uploadAudio>[1];

function toJobError(e: unknown): JobError {
  if (isApiError(e)) return { code: e.code, status: e.status, message: e.message, link: e.link };
  return { code: "unknown" };
}

function sessionStore() {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

type Dispatch = (action: TranscriptionAction) => void;
type StateRef = RefObject<TranscriptionState>;
type LoadSnapshot = (jobId: string, opts?: { showErrors?: boolean }) => Promise<boolean>;
type JobStore = ReturnType<typeof activeJobStore>;

/**
 * The job's progress over the socket: each event into the state (usage and the recent list refreshed
 * when it says so, the final snapshot read when the job on screen finishes), the live segments, and
 * after every (re)connect the active job's snapshot, so no update is missed.
 */
function useJobProgress(
  uid: string | null,
  dispatch: Dispatch,
  stateRef: StateRef,
  loadSnapshot: LoadSnapshot,
  refreshRecent: () => void,
) {
  const queryClient = useQueryClient();
  const onEvent = useCallback(
    (event: ProgressEvent) => {
      dispatch({ type: "event", event });
      const effects = effectsOf(event);
      if (effects.refreshUsage) void refetchAfterWrite(queryClient, ["usage"]);
      if (effects.finished) {
        refreshRecent();
        // The final snapshot carries the server's character count and audio retention.
        if (event.jobId === stateRef.current.jobId) void loadSnapshot(event.jobId);
      }
    },
    [queryClient, refreshRecent, loadSnapshot, dispatch, stateRef],
  );

  const onSegments = useCallback((event: SegmentsEvent) => dispatch({ type: "segments", event }), [dispatch]);

  // After every (re)connect, read the active job's snapshot so no update is missed.
  const onReady = useCallback(() => {
    const { jobId, processing: busy } = stateRef.current;
    if (jobId && busy) void loadSnapshot(jobId);
  }, [loadSnapshot, stateRef]);

  useProgressSocket(uid, { onEvent, onSegments, onReady });
}

/** Uploading a checked file (cancelled when the page goes away); the screen then follows the job. */
function useUpload({
  uid,
  store,
  dispatch,
  setNotice,
  refreshRecent,
  loadSnapshot,
}: {
  uid: string | null;
  store: JobStore;
  dispatch: Dispatch;
  setNotice: (notice: Notice | null) => void;
  refreshRecent: () => void;
  loadSnapshot: LoadSnapshot;
}) {
  const lang = useLang();
  const queryClient = useQueryClient();
  const uploadAbort = useRef<AbortController | null>(null);
  // Leaving the page cancels an unfinished upload.
  useEffect(() => () => uploadAbort.current?.abort(), []);

  return async (file: File, fields: UploadFields, audioLanguage: string) => {
    if (!uid) return;
    setNotice(null);
    store.clear();
    dispatch({ type: "uploadStart", audioLanguage });
    const ctrl = new AbortController();
    uploadAbort.current = ctrl;
    try {
      const { jobId } = await uploadAudio(
        file,
        fields,
        { uid, language: audioLanguage, uiLanguage: lang },
        ctrl.signal,
        // Phase 1 follows the bytes really sent.
        (sent, total, reconnecting) => dispatch({ type: "uploadProgress", sent, total, reconnecting }),
      );
      if (ctrl.signal.aborted) return;
      dispatch({ type: "uploadAccepted", jobId });
      store.set(jobId);
      refreshRecent();
      // Updates pushed before the socket knew about this job are read from the snapshot.
      void loadSnapshot(jobId);
    } catch (err) {
      if (ctrl.signal.aborted) return;
      console.warn("Upload failed", err);
      const error = toJobError(err);
      // The engine changed since the speech status was read: read it again so the selector says so.
      if (error.code === "TRANSCRIPTION_LANGUAGE_UNSUPPORTED") {
        void refetchAfterWrite(queryClient, SPEECH_QUERY_KEY);
      }
      dispatch({ type: "uploadFailed", error });
      setNotice({ kind: "error", error, warning: true });
    } finally {
      if (uploadAbort.current === ctrl) uploadAbort.current = null;
    }
  };
}

/**
 * A fresh screen (a new tab, a reload without a remembered job) follows a job that is still running,
 * e.g. one started in another tab: its progress shows and its result opens when it is done.
 */
function useFollowRunningJob(
  uid: string | null,
  recent: TranscriptionSnapshot[] | undefined,
  store: JobStore,
  stateRef: StateRef,
  loadSnapshot: LoadSnapshot,
) {
  const followed = useRef(false);
  useEffect(() => {
    if (followed.current || !uid || !recent) return;
    followed.current = true;
    const jobId = runningJob(recent);
    if (!jobId || store.get() || stateRef.current.phase !== "idle" || stateRef.current.jobId) return;
    void loadSnapshot(jobId).then((ok) => {
      if (ok) store.set(jobId);
    });
  }, [uid, recent, store, loadSnapshot, stateRef]);
}

export function useTranscriptionJob(uid: string | null) {
  const queryClient = useQueryClient();

  const [state, dispatch] = useReducer(transcriptionReducer, initialTranscriptionState);
  const stateRef = useRef(state);
  useLayoutEffect(() => {
    stateRef.current = state;
  }, [state]);
  const store = useMemo(() => activeJobStore(sessionStore()), []);

  const [notice, setNotice] = useState<Notice | null>(null);
  const [loadingJobId, setLoadingJobId] = useState<string | null>(null);

  const recent = useQuery({
    queryKey: recentKey(uid ?? ""),
    enabled: !!uid,
    queryFn: ({ signal }) => listRecent(signal),
  });

  const refreshRecent = useCallback(() => {
    if (uid) void refetchAfterWrite(queryClient, recentKey(uid));
  }, [queryClient, uid]);

  /** Reads a job's snapshot into the screen (merged when it is the job on screen). */
  const loadSnapshot = useCallback(
    async (jobId: string, opts: { showErrors?: boolean } = {}) => {
      try {
        const snapshot = await getSnapshot(jobId);
        dispatch({ type: "snapshot", snapshot });
        return true;
      } catch (e) {
        if (isApiError(e) && (e.status === 404 || e.status === 403)) {
          if (store.get() === jobId) store.clear();
        }
        console.warn("Transcription snapshot could not be read", e);
        if (opts.showErrors) setNotice({ kind: "error", error: toJobError(e), warning: false });
        return false;
      }
    },
    [store],
  );

  // A reload during (or after) a job restores it.
  useEffect(() => {
    if (!uid) {
      store.clear();
      return;
    }
    const jobId = store.get();
    if (jobId) void loadSnapshot(jobId);
  }, [uid, store, loadSnapshot]);

  useJobProgress(uid, dispatch, stateRef, loadSnapshot, refreshRecent);

  /** Choosing a new file clears previous results and errors. */
  const resetForNewFile = () => {
    dispatch({ type: "reset" });
    store.clear();
    setNotice(null);
  };

  /** Uploads a checked file; the screen then follows the job. */
  const upload = useUpload({ uid, store, dispatch, setNotice, refreshRecent, loadSnapshot });

  // Opening another job only waits for this tab's own upload: a job running on the server carries on
  // (its progress comes back when it is opened again).
  const uploading = state.phase === "uploading";
  const openJob = async (jobId: string) => {
    if (uploading) return;
    setNotice(null);
    setLoadingJobId(jobId);
    const ok = await loadSnapshot(jobId, { showErrors: true });
    setLoadingJobId(null);
    if (ok) store.set(jobId);
  };

  useFollowRunningJob(uid, recent.data, store, stateRef, loadSnapshot);

  const onAudioExpired = useCallback(() => dispatch({ type: "audioExpired" }), []);
  const onSpeakersRenamed = (snapshot: TranscriptionSnapshot) => dispatch({ type: "speakersRenamed", snapshot });

  // A failed job runs again from where it stopped; the screen follows it like a new upload.
  const retry = async () => {
    if (!state.jobId) return;
    try {
      const snapshot = await retryJob(state.jobId);
      dispatch({ type: "reset" });
      dispatch({ type: "snapshot", snapshot });
    } catch (err) {
      setNotice({ kind: "error", error: toJobError(err), warning: false });
    }
  };

  // The upload error is in `notice`; a job failure (from the socket or a snapshot) is in the state.
  const shown: Notice | null =
    notice ?? (state.phase === "failed" && state.error ? { kind: "error", error: state.error, warning: false } : null);

  return {
    state,
    uploading,
    notice,
    setNotice,
    /** The notice on screen: `notice`, else the failed job's error. */
    shown,
    recent,
    loadingJobId,
    resetForNewFile,
    upload,
    openJob,
    retry,
    onAudioExpired,
    onSpeakersRenamed,
  };
}
