import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { ExportMenu } from "../job/ExportMenu.tsx";
import { OnwardLinks } from "../job/OnwardLinks.tsx";
import { SpeakersPanel } from "../job/SpeakersPanel.tsx";
import { InterviewSyncStatus } from "./InterviewSync.tsx";
import type { JobEditor } from "./useJobEditor.ts";

/**
 * The job page's interview card: the attributed interview text (editable), its catching up with the
 * transcript, the speakers' names, the links onward and the exports.
 */
export function InterviewCard({
  snap,
  editor,
  editable,
  pending,
  onSeek,
  onReplaced,
}: {
  snap: TranscriptionSnapshot;
  editor: JobEditor;
  editable: boolean;
  /** Edits are waiting to be saved. */
  pending: boolean;
  /** Plays from a time (null: no audio). */
  onSeek: ((seconds: number) => void) | null;
  /** The server's new snapshot (speakers renamed, text brought up to date). */
  onReplaced: (s: TranscriptionSnapshot) => void;
}) {
  const { t } = useTranslation();
  return (
    <section className="card ws-interview" aria-labelledby="ws-interview-title">
      <h2 id="ws-interview-title">{t("transcription.correctedTitle")}</h2>
      {snap.rewrittenText !== null ? (
        <textarea
          id="ws-interview"
          className="tx-text ws-interview-text"
          data-testid="ws-interview"
          value={editor.values.interview}
          readOnly={!editable}
          rows={16}
          dir="auto"
          spellCheck
          aria-labelledby="ws-interview-title"
          onChange={(e) => editor.setInterview(e.target.value)}
          onBlur={() => void editor.save()}
        />
      ) : (
        <p className="muted">{t("transcription.waitingCorrected")}</p>
      )}
      {snap.rewrittenText !== null && editable ? (
        <InterviewSyncStatus
          snap={snap}
          version={editor.currentVersion}
          busy={pending}
          onSeek={onSeek}
          onResolved={onReplaced}
        />
      ) : null}
      {snap.rewrittenText !== null && snap.speakers.length > 1 ? (
        pending ? (
          <p className="hint">{t("job.speakersAfterSave")}</p>
        ) : (
          <SpeakersPanel jobId={snap.jobId} speakers={snap.speakers} onRenamed={onReplaced} />
        )
      ) : null}
      {snap.rewrittenText ? <OnwardLinks text={editor.values.interview} /> : null}
      {snap.transcription !== null ? (
        <ExportMenu jobId={snap.jobId} interviewReady={snap.rewrittenText !== null} beforeExport={editor.flush} />
      ) : null}
    </section>
  );
}
