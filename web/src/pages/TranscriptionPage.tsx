import { speechRefuses } from "@kikitori/shared";
import { type FormEvent, useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { useAuth } from "../auth/AuthProvider.tsx";
import { useLoginPrompt } from "../auth/useLoginPrompt.ts";
import { PageHeader } from "../components/PageHeader.tsx";
import { UsageBar } from "../components/UsageBar.tsx";
import { usePageMeta } from "../components/usePageMeta.ts";
import { useAppConfig } from "../config/appConfig.ts";
import { useUsage } from "../plan/useUsage.ts";
import { useLang } from "../routing/useLang.ts";
import { useAudioLanguageChoice } from "../transcription/AudioLanguageSelect.tsx";
import { DropZone } from "../transcription/DropZone.tsx";
import { checkSubmit, nextScreen } from "../transcription/form.ts";
import { NoticeBox } from "../transcription/NoticeBox.tsx";
import { ProgressBar } from "../transcription/ProgressBar.tsx";
import { RecentList } from "../transcription/RecentList.tsx";
import { ResultPanel } from "../transcription/ResultPanel.tsx";
import { Recorder } from "../transcription/recorder/Recorder.tsx";
import { type AudioSource, SourceSwitch } from "../transcription/recorder/SourceSwitch.tsx";
import { SpeechNotice } from "../transcription/SpeechNotice.tsx";
import { INITIAL_UPLOAD_FORM, UploadForm, type UploadFormValues } from "../transcription/UploadForm.tsx";
import { useSpeechStatus } from "../transcription/useSpeechStatus.ts";
import { useTranscriptionJob } from "../transcription/useTranscriptionJob.ts";

const LANGUAGE_UNSUPPORTED = "errors.TRANSCRIPTION_LANGUAGE_UNSUPPORTED";

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
  const config = useAppConfig();
  usePageMeta("transcription");

  const job = useTranscriptionJob(uid);
  const { state, notice, setNotice } = job;
  const processing = state.processing;

  const [picked, setFile] = useState<File | null>(null);
  // The form's file: the picked one, or with "Record audio" the recording made on this screen.
  const [source, setSource] = useState<AudioSource>("upload");
  const [recorded, setRecorded] = useState<File | null>(null);
  const file = source === "record" ? recorded : picked;
  const showRecorder = useCallback(() => setSource("record"), []);
  const [values, setValues] = useState<UploadFormValues>(INITIAL_UPLOAD_FORM);
  const speech = useSpeechStatus();
  const [audioLanguage, setAudioLanguage] = useAudioLanguageChoice(lang, speech);
  const usage = useUsage(uid ?? undefined);

  const setValue = <K extends keyof UploadFormValues>(key: K, value: UploadFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  // Choosing a new file (a refused one too) clears previous results and errors.
  const onChooseFile = (chosen: File | null) => {
    job.resetForNewFile();
    setFile(chosen);
  };
  // A new recording clears previous results like a new file; discarding one leaves them on screen.
  const onRecorded = (made: File | null) => {
    if (made) job.resetForNewFile();
    setRecorded(made);
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (processing) return;
    const problem = checkSubmit({
      loggedIn: !!uid,
      hasFile: !!file,
      model: values.model,
      languageRefused: speechRefuses(speech, audioLanguage),
    });
    if (problem === "loginRequired") return promptLogin();
    if (problem === "fileNotSelected") {
      const key = source === "record" ? "transcription.recorder.nothingRecorded" : "messages.fileNotSelected";
      return setNotice({ kind: "text", key });
    }
    if (problem === "fileTypeRequired") return setNotice({ kind: "text", key: "messages.fileTypeRequired" });
    if (problem === "languageUnsupported") {
      return setNotice({ kind: "text", key: LANGUAGE_UNSUPPORTED });
    }
    if (!file || !uid) return;
    const { interviewer, interviewee, tone, example, model, speakers, glossary } = values;
    await job.upload(
      file,
      { interviewer, interviewee, tone, interviewExample: example, model, speakers, glossary },
      audioLanguage,
    );
  };

  // Another language answers a blocked upload's "language unsupported" notice.
  const onAudioLanguageChange = (value: string) => {
    setAudioLanguage(value);
    if (notice?.kind === "text" && notice.key === LANGUAGE_UNSUPPORTED) setNotice(null);
  };

  const showResult = state.jobId !== null || state.transcription !== null;

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

            <UploadForm
              values={values}
              onChange={setValue}
              audioLanguage={audioLanguage}
              onAudioLanguageChange={onAudioLanguageChange}
              speech={speech}
              processing={processing}
            >
              <SourceSwitch value={source} onChange={setSource} disabled={processing} />
              <div hidden={source !== "upload"}>
                <DropZone file={picked} processing={processing} onChoose={onChooseFile} />
              </div>
              <div hidden={source !== "record"}>
                <Recorder
                  file={file}
                  processing={processing}
                  uploading={job.uploading}
                  jobId={state.jobId}
                  onChoose={onRecorded}
                  onKept={showRecorder}
                />
              </div>
            </UploadForm>

            {job.shown ? <NoticeBox notice={job.shown} contactUrl={config.contactUrl} /> : null}

            {state.phase !== "idle" ? <ProgressBar state={state} /> : null}

            <button
              type="submit"
              className="btn btn-primary btn-block"
              data-testid="tx-submit"
              disabled={processing}
              aria-busy={processing}
            >
              {processing ? <span className="spinner spinner-light" aria-hidden="true" /> : null}
              {processing
                ? t("transcription.processing")
                : source === "record"
                  ? t("transcription.recorder.transcribe")
                  : t("transcription.submit")}
            </button>
          </form>

          {showResult ? (
            <ResultPanel
              state={state}
              onAudioExpired={job.onAudioExpired}
              onSpeakersRenamed={job.onSpeakersRenamed}
              onRetry={job.retry}
            />
          ) : null}
        </div>

        {uid ? (
          <aside className="tx-side">
            <RecentList
              jobs={job.recent.data}
              loading={job.recent.isPending}
              activeJobId={state.jobId}
              loadingJobId={job.loadingJobId}
              disabled={job.uploading || job.loadingJobId !== null}
              onOpen={job.openJob}
            />
          </aside>
        ) : null}
      </div>
    </section>
  );
}
