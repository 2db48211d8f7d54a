import {
  FILE_TYPES,
  INTERVIEW_EXAMPLE_MAX,
  NAME_MAX,
  type ProgressEvent,
  type SegmentsEvent,
  speechRefuses,
  TONES,
} from "@kikitori/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import {
  type ChangeEvent,
  type DragEvent,
  type FormEvent,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
} from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { isApiError } from "../api/errors.ts";
import { useAuth } from "../auth/AuthProvider.tsx";
import { useLoginPrompt } from "../auth/useLoginPrompt.ts";
import { ExternalLink } from "../components/ExternalLink.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { UsageBar } from "../components/UsageBar.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { useAppConfig } from "../config/appConfig.ts";
import { useUsage } from "../plan/useUsage.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { AudioLanguageSelect, useAudioLanguageChoice } from "../transcription/AudioLanguageSelect.tsx";
import { getSnapshot, listRecent, retryJob, uploadAudio } from "../transcription/api.ts";
import { jobErrorText } from "../transcription/errorMessage.ts";
import {
  AUDIO_ACCEPT,
  activeJobStore,
  checkFile,
  checkSubmit,
  DEFAULT_FILE_TYPE,
  formatFileSize,
  nextScreen,
  runningJob,
} from "../transcription/form.ts";
import { ProgressBar } from "../transcription/ProgressBar.tsx";
import {
  effectsOf,
  initialTranscriptionState,
  type JobError,
  transcriptionReducer,
} from "../transcription/progress.ts";
import { RecentList } from "../transcription/RecentList.tsx";
import { ResultPanel } from "../transcription/ResultPanel.tsx";
import { DEFAULT_SPEAKER_COUNT, SpeakerCountSelect } from "../transcription/SpeakerCountSelect.tsx";
import { SpeechNotice } from "../transcription/SpeechNotice.tsx";
import { useProgressSocket } from "../transcription/useProgressSocket.ts";
import { SPEECH_QUERY_KEY, useSpeechStatus } from "../transcription/useSpeechStatus.ts";

const recentKey = (uid: string) => ["transcriptions", uid] as const;
const LANGUAGE_UNSUPPORTED = "errors.TRANSCRIPTION_LANGUAGE_UNSUPPORTED";

/** A problem to show above the submit button: a translated validation text, or an upload/job error. */
type Notice = { kind: "text"; key: string } | { kind: "error"; error: JobError; warning: boolean };

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

export function TranscriptionPage() {
  const { user } = useAuth();
  // Logging out or another user starts a fresh screen; logging in from the visitor's screen keeps it.
  const uid = user?.uid ?? null;
  const [screen, setScreen] = useState({ uid, generation: 0 });
  const next = nextScreen(screen, uid);
  if (next !== screen) setScreen(next);
  return <TranscriptionScreen key={next.generation} uid={uid} />;
}

function TranscriptionScreen({ uid }: { uid: string | null }) {
  const { t } = useTranslation();
  const lang = useLang();
  const promptLogin = useLoginPrompt();
  const queryClient = useQueryClient();
  const config = useAppConfig();
  usePageMeta("transcription");

  const [state, dispatch] = useReducer(transcriptionReducer, initialTranscriptionState);
  const stateRef = useRef(state);
  useLayoutEffect(() => {
    stateRef.current = state;
  }, [state]);
  const store = useMemo(() => activeJobStore(sessionStore()), []);

  const [file, setFile] = useState<File | null>(null);
  const [model, setModel] = useState<string>(DEFAULT_FILE_TYPE);
  const [speakers, setSpeakers] = useState<string>(DEFAULT_SPEAKER_COUNT);
  const [audioLanguage, setAudioLanguage] = useAudioLanguageChoice(lang);
  const [interviewer, setInterviewer] = useState("");
  const [interviewee, setInterviewee] = useState("");
  const [tone, setTone] = useState("");
  const [example, setExample] = useState("");
  const [notice, setNotice] = useState<Notice | null>(null);
  /** A refused file (too large, not audio): shown at the drop zone, where the file was dropped. */
  const [fileError, setFileError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [loadingJobId, setLoadingJobId] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const uploadAbort = useRef<AbortController | null>(null);

  const processing = state.processing;
  const speech = useSpeechStatus();
  const usage = useUsage(uid ?? undefined);
  const recent = useQuery({
    queryKey: recentKey(uid ?? ""),
    enabled: !!uid,
    queryFn: ({ signal }) => listRecent(signal),
  });

  const refreshRecent = useCallback(() => {
    if (uid) void queryClient.invalidateQueries({ queryKey: recentKey(uid) });
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

  // Phase 1: the bar creeps up 0.5 per second (to at most 5) until the upload answers.
  useEffect(() => {
    if (state.phase !== "uploading") return;
    const timer = setInterval(() => dispatch({ type: "tick" }), 1000);
    return () => clearInterval(timer);
  }, [state.phase]);

  // A file dropped next to the drop zone must not make the browser open it (and lose the screen).
  useEffect(() => {
    const guard = (e: globalThis.DragEvent) => {
      if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
    };
    window.addEventListener("dragover", guard);
    window.addEventListener("drop", guard);
    return () => {
      window.removeEventListener("dragover", guard);
      window.removeEventListener("drop", guard);
    };
  }, []);

  // Leaving the page cancels an unfinished upload.
  useEffect(() => () => uploadAbort.current?.abort(), []);

  const onEvent = useCallback(
    (event: ProgressEvent) => {
      dispatch({ type: "event", event });
      const effects = effectsOf(event);
      if (effects.refreshUsage) void queryClient.invalidateQueries({ queryKey: ["usage"] });
      if (effects.finished) {
        refreshRecent();
        // The final snapshot carries the server's character count and audio retention.
        if (event.jobId === stateRef.current.jobId) void loadSnapshot(event.jobId);
      }
    },
    [queryClient, refreshRecent, loadSnapshot],
  );

  const onSegments = useCallback((event: SegmentsEvent) => dispatch({ type: "segments", event }), []);

  // After every (re)connect, read the active job's snapshot so no update is missed.
  const onReady = useCallback(() => {
    const { jobId, processing: busy } = stateRef.current;
    if (jobId && busy) void loadSnapshot(jobId);
  }, [loadSnapshot]);

  useProgressSocket(uid, { onEvent, onSegments, onReady });

  const resetForNewFile = () => {
    dispatch({ type: "reset" });
    store.clear();
    setNotice(null);
  };

  const acceptFile = (picked: File | null | undefined) => {
    if (processing || !picked) return;
    // Choosing a new file clears previous results and errors.
    resetForNewFile();
    const problem = checkFile(picked);
    if (problem) {
      setFile(null);
      if (fileInput.current) fileInput.current.value = "";
      setFileError(problem === "tooLarge" ? "messages.fileTooLarge" : "errors.UNSUPPORTED_AUDIO");
      return;
    }
    setFileError(null);
    setFile(picked);
  };

  const onFileChange = (e: ChangeEvent<HTMLInputElement>) => acceptFile(e.target.files?.[0]);

  const onDragOver = (e: DragEvent) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = processing ? "none" : "copy";
    if (!processing) setDragging(true);
  };
  const onDragLeave = (e: DragEvent) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    acceptFile(e.dataTransfer.files?.[0]);
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (processing) return;
    const problem = checkSubmit({
      loggedIn: !!uid,
      hasFile: !!file,
      model,
      languageRefused: speechRefuses(speech, audioLanguage),
    });
    if (problem === "loginRequired") return promptLogin();
    if (problem === "fileNotSelected") return setNotice({ kind: "text", key: "messages.fileNotSelected" });
    if (problem === "fileTypeRequired") return setNotice({ kind: "text", key: "messages.fileTypeRequired" });
    if (problem === "languageUnsupported") {
      return setNotice({ kind: "text", key: LANGUAGE_UNSUPPORTED });
    }
    if (!file || !uid) return;

    setNotice(null);
    store.clear();
    dispatch({ type: "uploadStart", audioLanguage });
    const ctrl = new AbortController();
    uploadAbort.current = ctrl;
    try {
      const { jobId } = await uploadAudio(
        file,
        { interviewer, interviewee, tone, interviewExample: example, model, speakers },
        { uid, language: audioLanguage, uiLanguage: lang },
        ctrl.signal,
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
        void queryClient.invalidateQueries({ queryKey: SPEECH_QUERY_KEY });
      }
      dispatch({ type: "uploadFailed", error });
      setNotice({ kind: "error", error, warning: true });
    } finally {
      if (uploadAbort.current === ctrl) uploadAbort.current = null;
    }
  };

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

  // A fresh screen (a new tab, a reload without a remembered job) follows a job that is still running,
  // e.g. one started in another tab: its progress shows and its result opens when it is done.
  const followed = useRef(false);
  useEffect(() => {
    if (followed.current || !uid || !recent.data) return;
    followed.current = true;
    const jobId = runningJob(recent.data);
    if (!jobId || store.get() || stateRef.current.phase !== "idle" || stateRef.current.jobId) return;
    void loadSnapshot(jobId).then((ok) => {
      if (ok) store.set(jobId);
    });
  }, [uid, recent.data, store, loadSnapshot]);

  const onAudioExpired = useCallback(() => dispatch({ type: "audioExpired" }), []);

  // Another language answers a blocked upload's "language unsupported" notice.
  const onAudioLanguageChange = (value: string) => {
    setAudioLanguage(value);
    if (notice?.kind === "text" && notice.key === LANGUAGE_UNSUPPORTED) setNotice(null);
  };

  // The upload error is in `notice`; a job failure (from the socket or a snapshot) is in the state.
  const shown: Notice | null =
    notice ?? (state.phase === "failed" && state.error ? { kind: "error", error: state.error, warning: false } : null);

  const showResult = state.jobId !== null || state.transcription !== null;

  // A failed job runs again from where it stopped; the screen follows it like a new upload.
  const onRetry = async () => {
    if (!state.jobId) return;
    try {
      const snapshot = await retryJob(state.jobId);
      dispatch({ type: "reset" });
      dispatch({ type: "snapshot", snapshot });
    } catch (err) {
      setNotice({ kind: "error", error: toJobError(err), warning: false });
    }
  };

  return (
    <section className="page tx-page">
      <PageHeader title={t("tools.transcription.title")} lead={t("tools.transcription.description")} />

      <div className="tx-layout">
        <div className="tx-main">
          <SpeechNotice status={speech} />

          <form className="card tx-form" onSubmit={onSubmit} noValidate aria-busy={processing}>
            {uid && usage.data ? (
              <div className="tx-usage">
                <UsageBar
                  testId="tx-usage"
                  label={t("plan.minutes")}
                  used={usage.data.totalMinutesUsed}
                  max={usage.data.maxMinutes}
                  unit="minutes"
                />
              </div>
            ) : null}

            <fieldset className="tx-fieldset" disabled={processing}>
              <legend className="visually-hidden">{t("transcription.formLegend")}</legend>

              <div className="field">
                <span className="field-label" id="tx-file-label">
                  {t("transcription.fileLabel")}
                </span>
                <label
                  className={`tx-dropzone${dragging ? " dragging" : ""}${processing ? " disabled" : ""}${file ? " has-file" : ""}${fileError ? " invalid" : ""}`}
                  data-testid="tx-dropzone"
                  onDragOver={onDragOver}
                  onDragEnter={onDragOver}
                  onDragLeave={onDragLeave}
                  onDrop={onDrop}
                >
                  <input
                    ref={fileInput}
                    className="visually-hidden"
                    type="file"
                    accept={AUDIO_ACCEPT}
                    data-testid="tx-file-input"
                    aria-labelledby="tx-file-label"
                    aria-describedby={fileError ? "tx-file-error tx-file-hint" : "tx-file-hint"}
                    aria-invalid={fileError ? true : undefined}
                    onChange={onFileChange}
                    disabled={processing}
                  />
                  <UploadIcon />
                  {file ? (
                    <span className="tx-file">
                      <span className="tx-file-name" data-testid="tx-file-name">
                        {file.name}
                      </span>
                      <span className="tx-file-size muted" data-testid="tx-file-size">
                        {formatFileSize(file.size, lang)}
                      </span>
                      <span className="tx-file-change">{t("transcription.changeFile")}</span>
                    </span>
                  ) : (
                    <span className="tx-dropzone-text">
                      <strong>{t("transcription.dropzoneTitle")}</strong>
                    </span>
                  )}
                  <span className="hint" id="tx-file-hint">
                    {t("transcription.dropzoneHint")}
                  </span>
                </label>
                {fileError ? (
                  <p className="field-error" id="tx-file-error" role="alert" data-testid="tx-file-error">
                    {t(fileError)}
                  </p>
                ) : null}
              </div>

              <AudioLanguageSelect
                value={audioLanguage}
                onChange={onAudioLanguageChange}
                status={speech}
                disabled={processing}
              />

              <SpeakerCountSelect value={speakers} onChange={setSpeakers} disabled={processing} />

              <div className="tx-grid">
                <div className="field">
                  <label htmlFor="tx-model">{t("fileTypes.label")}</label>
                  <select
                    id="tx-model"
                    data-testid="tx-model"
                    value={model}
                    onChange={(e) => setModel(e.target.value)}
                    disabled={processing}
                  >
                    <option value="">{t("transcription.fileTypePlaceholder")}</option>
                    {FILE_TYPES.map((ft) => (
                      <option key={ft} value={ft}>
                        {t(`fileTypes.${ft}`)}
                      </option>
                    ))}
                  </select>
                </div>
                <div className="field">
                  <label htmlFor="tx-tone">{t("tones.label")}</label>
                  <select
                    id="tx-tone"
                    data-testid="tx-tone"
                    value={tone}
                    onChange={(e) => setTone(e.target.value)}
                    disabled={processing}
                  >
                    <option value="">{t("transcription.toneNone")}</option>
                    {TONES.map((tn) => (
                      <option key={tn} value={tn}>
                        {t(`tones.${tn}`)}
                      </option>
                    ))}
                  </select>
                </div>
                <div className="field">
                  <label htmlFor="tx-interviewer">{t("transcription.interviewer")}</label>
                  <input
                    id="tx-interviewer"
                    data-testid="tx-interviewer"
                    type="text"
                    autoComplete="off"
                    maxLength={NAME_MAX}
                    value={interviewer}
                    onChange={(e) => setInterviewer(e.target.value)}
                    disabled={processing}
                  />
                </div>
                <div className="field">
                  <label htmlFor="tx-interviewee">{t("transcription.interviewee")}</label>
                  <input
                    id="tx-interviewee"
                    data-testid="tx-interviewee"
                    type="text"
                    autoComplete="off"
                    maxLength={NAME_MAX}
                    value={interviewee}
                    onChange={(e) => setInterviewee(e.target.value)}
                    disabled={processing}
                  />
                </div>
              </div>

              <div className="field">
                <div className="field-label-row">
                  <label htmlFor="tx-example">{t("transcription.example")}</label>
                  <span
                    className={example.length >= INTERVIEW_EXAMPLE_MAX ? "tx-counter full" : "tx-counter"}
                    data-testid="tx-example-count"
                    aria-live="polite"
                  >
                    {t("transcription.exampleCount", { count: example.length, max: INTERVIEW_EXAMPLE_MAX })}
                  </span>
                </div>
                <textarea
                  id="tx-example"
                  data-testid="tx-example"
                  rows={4}
                  maxLength={INTERVIEW_EXAMPLE_MAX}
                  value={example}
                  onChange={(e) => setExample(e.target.value.slice(0, INTERVIEW_EXAMPLE_MAX))}
                  aria-describedby="tx-example-hint"
                  disabled={processing}
                />
                <p className="hint" id="tx-example-hint">
                  {t("transcription.exampleHint")}
                </p>
              </div>
            </fieldset>

            {shown ? <NoticeBox notice={shown} contactUrl={config.contactUrl} /> : null}

            {state.phase !== "idle" ? (
              <ProgressBar phase={state.phase} value={state.progress} audio={state.audio} />
            ) : null}

            <button
              type="submit"
              className="btn btn-primary btn-block"
              data-testid="tx-submit"
              disabled={processing}
              aria-busy={processing}
            >
              {processing ? <span className="spinner spinner-light" aria-hidden="true" /> : null}
              {processing ? t("transcription.processing") : t("transcription.submit")}
            </button>
          </form>

          {showResult ? (
            <ResultPanel
              state={state}
              onAudioExpired={onAudioExpired}
              onSpeakersRenamed={(snapshot) => dispatch({ type: "speakersRenamed", snapshot })}
              onRetry={onRetry}
            />
          ) : null}
        </div>

        {uid ? (
          <aside className="tx-side">
            <RecentList
              jobs={recent.data}
              loading={recent.isPending}
              activeJobId={state.jobId}
              loadingJobId={loadingJobId}
              disabled={uploading || loadingJobId !== null}
              onOpen={openJob}
            />
          </aside>
        ) : null}
      </div>
    </section>
  );
}

/** The problem box (data-testid tx-error): validation text, or an upload/job error with its links. */
function NoticeBox({ notice, contactUrl }: { notice: Notice; contactUrl: string }) {
  const { t, i18n } = useTranslation();
  const lang = useLang();
  if (notice.kind === "text") {
    return (
      <div className="alert alert-error" role="alert" data-testid="tx-error">
        {t(notice.key)}
      </div>
    );
  }
  const { error } = notice;
  return (
    <div
      className={notice.warning ? "alert alert-warning" : "alert alert-error"}
      role="alert"
      data-testid="tx-error"
      data-code={error.code}
    >
      <span>{jobErrorText(t, i18n, error)}</span>
      {error.code === "QUOTA_EXCEEDED" ? (
        <>
          {" "}
          <Link to={localePath(lang, ROUTES.upgradePlan)} data-testid="tx-upgrade-link">
            {t("transcription.upgradeLink")}
          </Link>
        </>
      ) : null}
      {contactUrl ? (
        <>
          {" "}
          <ExternalLink href={contactUrl}>{t("messages.contactSupport")}</ExternalLink>
        </>
      ) : null}
    </div>
  );
}

function UploadIcon() {
  return (
    <svg className="tx-upload-icon" width="32" height="32" viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <path
        d="M12 16V4m0 0 4.5 4.5M12 4 7.5 8.5M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
