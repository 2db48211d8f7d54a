import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { errorText } from "../i18n/errorText.ts";
import { SegmentList } from "../job/SegmentList.tsx";
import type { Player } from "../job/usePlayer.ts";
import { QuotesPanel } from "./QuotesPanel.tsx";
import type { JobEditor } from "./useJobEditor.ts";

/**
 * The job page's transcript card: the timed lines (editable, following the audio) or the plain
 * transcript when there are no lines, a failed split, and the quotes.
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
  return (
    <section className="card ws-transcript" aria-labelledby="ws-transcript-title">
      <h2 id="ws-transcript-title">{t("transcription.transcriptTitle")}</h2>
      {snap.segments.length ? (
        <SegmentList
          segments={snap.segments}
          texts={editor.values.segments}
          who={editor.values.speakers}
          speakers={snap.speakers}
          time={player.time}
          canSeek={canPlay}
          editable={editable}
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
