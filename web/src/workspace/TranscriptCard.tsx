import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { errorText } from "../i18n/errorText.ts";
import { SegmentList } from "../job/SegmentList.tsx";
import type { Player } from "../job/usePlayer.ts";
import { QuotesPanel } from "./QuotesPanel.tsx";
import type { JobEditor } from "./useJobEditor.ts";

/** How the lines show: fields to edit, or words to read along and click (the audio plays from a word). */
type TranscriptView = "edit" | "read";
const VIEW_KEY = "kikitori.transcriptView";

/** The view the user chose last in this browser (reading when none: listening first, editing one click away). */
function useTranscriptView(): [TranscriptView, (view: TranscriptView) => void] {
  const [view, setView] = useState<TranscriptView>(() => {
    try {
      return globalThis.localStorage?.getItem(VIEW_KEY) === "edit" ? "edit" : "read";
    } catch {
      return "read";
    }
  });
  const choose = (next: TranscriptView) => {
    setView(next);
    try {
      globalThis.localStorage?.setItem(VIEW_KEY, next);
    } catch {}
  };
  return [view, choose];
}

/** The choice between editing the lines and reading them word by word. */
function ViewSwitch({ view, onView }: { view: TranscriptView; onView: (view: TranscriptView) => void }) {
  const { t } = useTranslation();
  return (
    <fieldset className="ws-view-switch" aria-label={t("job.view")} data-testid="ws-view">
      {(["read", "edit"] as const).map((v) => (
        <button
          key={v}
          type="button"
          className="btn btn-secondary btn-small"
          data-testid={`ws-view-${v}`}
          aria-pressed={view === v}
          onClick={() => onView(v)}
        >
          {t(v === "read" ? "job.viewRead" : "job.viewEdit")}
        </button>
      ))}
    </fieldset>
  );
}

/**
 * The job page's transcript card: the timed lines (editable, following the audio) or the plain
 * transcript when there are no lines, a failed split, and the quotes. A finished job's lines open as
 * words to read along and click (the read view, the only one otherwise); the Edit switch turns them
 * into fields to edit, with the split buttons (the choice is remembered in this browser).
 */
export function TranscriptCard({
  snap,
  editor,
  player,
  canPlay,
  editable,
  language,
  splitError,
  onSplit,
}: {
  snap: TranscriptionSnapshot;
  editor: JobEditor;
  player: Player;
  /** The audio is loaded and kept: lines can seek and quotes play. */
  canPlay: boolean;
  editable: boolean;
  /** The language the quotes are in. */
  language: string;
  splitError: unknown;
  onSplit: (index: number, at: number) => void;
}) {
  const { t } = useTranslation();
  const [view, setView] = useTranscriptView();
  const reading = !editable || view === "read";
  return (
    <section className="card ws-transcript" aria-labelledby="ws-transcript-title">
      <div className="ws-transcript-head">
        <h2 id="ws-transcript-title">{t("transcription.transcriptTitle")}</h2>
        {editable && snap.segments.length ? (
          <ViewSwitch
            view={view}
            onView={(next) => {
              // What was typed is saved first: the words then come from the saved lines.
              if (next === "read") void editor.flush();
              setView(next);
            }}
          />
        ) : null}
      </div>
      {snap.segments.length ? (
        <SegmentList
          segments={snap.segments}
          texts={editor.values.segments}
          who={editor.values.speakers}
          speakers={snap.speakers}
          time={player.time}
          canSeek={canPlay}
          editable={editable}
          language={language}
          plainText={reading}
          onSeek={player.seek}
          onPlay={player.play}
          onEdit={editor.setSegment}
          onSpeaker={editor.setSpeaker}
          onSplit={editable ? onSplit : undefined}
        />
      ) : (
        <textarea
          className="tx-text"
          readOnly
          value={snap.transcription ?? ""}
          rows={12}
          dir="auto"
          aria-labelledby="ws-transcript-title"
        />
      )}
      {splitError ? <ErrorAlert message={errorText(t, splitError)} error={splitError} testId="ws-split-error" /> : null}
      {snap.segments.length > 0 && snap.transcription !== null ? (
        <QuotesPanel
          jobId={snap.jobId}
          version={snap.version}
          segments={snap.segments}
          texts={editor.values.segments}
          speakers={snap.speakers}
          language={language}
          onPlaySpan={canPlay ? player.playSpan : null}
          onSeek={canPlay ? player.seek : null}
          beforeSave={editor.flush}
          interviewId="ws-interview"
        />
      ) : null}
    </section>
  );
}
