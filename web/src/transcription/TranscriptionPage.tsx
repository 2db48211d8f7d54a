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
import { useAudioLanguageChoice } from "./AudioLanguageSelect.tsx";
import { DropZone } from "./DropZone.tsx";
import { checkSubmit, nextScreen, type SubmitProblem } from "./form.ts";
import { NoticeBox } from "./NoticeBox.tsx";
import { ProgressBar } from "./ProgressBar.tsx";
import { RecentList } from "./RecentList.tsx";
import { ResultPanel } from "./ResultPanel.tsx";
import { Recorder } from "./recorder/Recorder.tsx";
import { type AudioSource, SourceSwitch } from "./recorder/SourceSwitch.tsx";
import { SpeechNotice } from "./SpeechNotice.tsx";
import { INITIAL_UPLOAD_FORM, UploadForm, type UploadFormValues } from "./UploadForm.tsx";
import { useSpeechStatus } from "./useSpeechStatus.ts";
import { useTranscriptionJob } from "./useTranscriptionJob.ts";

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

/** The notice a refused submit shows (logging in is asked in the dialog instead). */
function problemKey(problem: Exclude<SubmitProblem, "loginRequired">, source: AudioSource): string {
  if (problem === "fileNotSelected") {
    return source === "record" ? "transcription.recorder.nothingRecorded" : "messages.fileNotSelected";
  }
  if (problem === "fileTypeRequired") return "messages.fileTypeRequired";
  return LANGUAGE_UNSUPPORTED;
}

/**
 * The form's file: the picked one, or with "Record audio" the recording made on this screen.
 * Choosing a new file (a refused one too) clears previous results and errors (`onNewFile`); a new
 * recording does too, while discarding one leaves them on screen.
 */
function useAudioFileChoice(onNewFile: () => void) {
  const [picked, setFile] = useState<File | null>(null);
  const [source, setSource] = useState<AudioSource>("upload");
  const [recorded, setRecorded] = useState<File | null>(null);
  const showRecorder = useCallback(() => setSource("record"), []);
  const onChooseFile = (chosen: File | null) => {
    onNewFile();
    setFile(chosen);
  };
  const onRecorded = (made: File | null) => {
    if (made) onNewFile();
    setRecorded(made);
  };
  const file = source === "record" ? recorded : picked;
  return { picked, source, setSource, file, showRecorder, onChooseFile, onRecorded };
}

/** Upload a file or record audio: the switch, the drop zone and the recorder. */
function AudioFilePicker({
  audio,
  processing,
  uploading,
  jobId,
}: {
  audio: ReturnType<typeof useAudioFileChoice>;
  processing: boolean;
  uploading: boolean;
  jobId: string | null;
}) {
  const { source } = audio;
  return (
    <>
      <SourceSwitch value={source} onChange={audio.setSource} disabled={processing} />
      <div hidden={source !== "upload"}>
        <DropZone file={audio.picked} processing={processing} onChoose={audio.onChooseFile} />
      </div>
      <div hidden={source !== "record"}>
        <Recorder
          file={audio.file}
          processing={processing}
          uploading={uploading}
          jobId={jobId}
          onChoose={audio.onRecorded}
          onKept={audio.showRecorder}
        />
      </div>
    </>
  );
}

/** The minutes used this month against the plan's, for a logged-in user. */
function MinutesUsage({ uid }: { uid: string }) {
  const { t } = useTranslation();
  const usage = useUsage(uid);
  if (!usage.data) return null;
  return (
    <div className="tx-usage">
      <UsageBar
        testId="tx-usage"
        label={t("plan.minutes")}
        used={usage.data.totalMinutesUsed}
        max={usage.data.maxMinutes}
        unit="minutes"
      />
    </div>
  );
}

/** Transcribe (the file or the recording), or that it is processing. */
function TranscribeButton({ processing, source }: { processing: boolean; source: AudioSource }) {
  const { t } = useTranslation();
  return (
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
  );
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

  const audio = useAudioFileChoice(job.resetForNewFile);
  const { source, file } = audio;
  const [values, setValues] = useState<UploadFormValues>(INITIAL_UPLOAD_FORM);
  const speech = useSpeechStatus();
  const [audioLanguage, setAudioLanguage] = useAudioLanguageChoice(lang, speech);

  const setValue = <K extends keyof UploadFormValues>(key: K, value: UploadFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

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
    if (problem) return setNotice({ kind: "text", key: problemKey(problem, source) });
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
          <SpeechNotice status={speech} language={audioLanguage} />

          <form className="card tx-form" onSubmit={onSubmit} noValidate aria-busy={processing}>
            {uid ? <MinutesUsage uid={uid} /> : null}

            <UploadForm
              values={values}
              onChange={setValue}
              audioLanguage={audioLanguage}
              onAudioLanguageChange={onAudioLanguageChange}
              speech={speech}
              processing={processing}
            >
              <AudioFilePicker audio={audio} processing={processing} uploading={job.uploading} jobId={state.jobId} />
            </UploadForm>

            {job.shown ? <NoticeBox notice={job.shown} contactUrl={config.contactUrl} /> : null}

            {state.phase !== "idle" ? <ProgressBar state={state} /> : null}

            <TranscribeButton processing={processing} source={source} />
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
