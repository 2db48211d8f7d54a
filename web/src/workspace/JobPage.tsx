import type { ProgressEvent, SegmentsEvent, TranscriptionSnapshot } from "@kikitori/shared";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useReducer, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, Navigate, useParams } from "react-router";
import { isApiError } from "../api/errors.ts";
import { refetchAfterWrite } from "../api/refetch.ts";
import { useAuth } from "../auth/AuthProvider.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { errorText } from "../i18n/errorText.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { getSnapshot } from "../transcription/api.ts";
import { LiveTranscript } from "../transcription/LiveTranscript.tsx";
import { ProgressBar } from "../transcription/ProgressBar.tsx";
import { effectsOf, initialTranscriptionState, transcriptionReducer } from "../transcription/progress.ts";
import { SpeechNotice } from "../transcription/SpeechNotice.tsx";
import { useProgressSocket } from "../transcription/useProgressSocket.ts";
import { useSpeechStatus } from "../transcription/useSpeechStatus.ts";
import { JobWorkspace } from "./JobWorkspace.tsx";

export const jobKey = (jobId: string) => ["job", jobId] as const;

/**
 * The job page (/{lang}/transcriptions/{jobId}): a running job shows its progress and live text; a
 * finished one opens the workspace (player, timed transcript, editing, versions, exports, fidelity).
 */
export function JobPage() {
  const { user } = useAuth();
  const lang = useLang();
  const { jobId = "" } = useParams();
  usePageMeta("job");
  if (!user) return <Navigate to={localePath(lang, ROUTES.login)} replace />;
  return <JobScreen key={`${user.uid}:${jobId}`} uid={user.uid} jobId={jobId} />;
}

function JobScreen({ uid, jobId }: { uid: string; jobId: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  const queryClient = useQueryClient();
  const job = useQuery({ queryKey: jobKey(jobId), queryFn: ({ signal }) => getSnapshot(jobId, signal) });
  // When "Try again" was last pressed here: a job that fails once more says so, with the time.
  const [retriedAt, setRetriedAt] = useState<Date | null>(null);

  const back = (
    <p className="ws-back">
      <Link to={localePath(lang, ROUTES.library)} data-testid="ws-back">
        {t("job.backToLibrary")}
      </Link>
    </p>
  );

  if (job.isPending) {
    return (
      <section className="page ws-page">
        {back}
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("job.loading")}
        </p>
      </section>
    );
  }
  if (job.isError) {
    const missing = isApiError(job.error) && job.error.status === 404;
    return (
      <section className="page ws-page">
        {back}
        <h1 data-testid="page-title">{t("job.title")}</h1>
        <p className="alert alert-error" role="alert" data-testid="ws-missing">
          {missing ? t("job.notFound") : errorText(t, job.error)}
        </p>
      </section>
    );
  }
  const snapshot = job.data;
  const refresh = () => void refetchAfterWrite(queryClient, jobKey(jobId));
  const finished = snapshot.status === "completed" || snapshot.status === "failed";
  return (
    <section className="page ws-page">
      {back}
      {finished ? (
        <JobWorkspace
          // A new run of the job (retry) or a reload starts the editor afresh.
          key={`${snapshot.status}:${snapshot.createdAt}`}
          snapshot={snapshot}
          onFailedRetry={() => {
            setRetriedAt(new Date());
            refresh();
          }}
          retriedAt={retriedAt}
          onReplaced={(s) => queryClient.setQueryData(jobKey(jobId), s)}
        />
      ) : (
        <RunningJob uid={uid} snapshot={snapshot} onFinished={refresh} />
      )}
    </section>
  );
}

/** A job still running: its title, the progress bar and the live text, followed over the socket. */
function RunningJob({
  uid,
  snapshot,
  onFinished,
}: {
  uid: string;
  snapshot: TranscriptionSnapshot;
  onFinished: () => void;
}) {
  const { t } = useTranslation();
  const [state, dispatch] = useReducer(transcriptionReducer, initialTranscriptionState);
  const speech = useSpeechStatus();
  useEffect(() => dispatch({ type: "snapshot", snapshot }), [snapshot]);

  const onEvent = useCallback(
    (event: ProgressEvent) => {
      if (event.jobId !== snapshot.jobId) return;
      dispatch({ type: "event", event });
      if (effectsOf(event).finished) onFinished();
    },
    [snapshot.jobId, onFinished],
  );
  const onSegments = useCallback(
    (event: SegmentsEvent) => {
      if (event.jobId === snapshot.jobId) dispatch({ type: "segments", event });
    },
    [snapshot.jobId],
  );
  // After a (re)connect the snapshot is read again, so no update is missed.
  const onReady = onFinished;
  useProgressSocket(uid, { onEvent, onSegments, onReady });

  return (
    <>
      <h1 className="ws-title-static" data-testid="page-title" dir="auto">
        {snapshot.title}
      </h1>
      <SpeechNotice status={speech} language={snapshot.detectedLanguage ?? snapshot.audioLanguage} />
      <div className="card" data-testid="ws-running">
        <ProgressBar state={state} />
        <h2 id="ws-live-title">{t("transcription.transcriptTitle")}</h2>
        {state.segments.length ? (
          <LiveTranscript segments={state.segments} labelledBy="ws-live-title" />
        ) : (
          <p className="muted">{t("transcription.waitingTranscript")}</p>
        )}
      </div>
    </>
  );
}
