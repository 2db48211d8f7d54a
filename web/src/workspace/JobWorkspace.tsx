import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useState } from "react";
import { useAudioSource } from "../job/useAudioSource.ts";
import { usePlayer } from "../job/usePlayer.ts";
import { useLang } from "../routing/useLang.ts";
import { getSnapshot } from "../transcription/api.ts";
import { splitLine } from "./api.ts";
import { FailedNotice } from "./FailedNotice.tsx";
import { FidelityPanel } from "./FidelityPanel.tsx";
import { InterviewCard } from "./InterviewCard.tsx";
import { useInterviewSyncPoll } from "./InterviewSync.tsx";
import { JobNotices } from "./JobNotices.tsx";
import { PlayerCard } from "./PlayerCard.tsx";
import { SharePanel } from "./SharePanel.tsx";
import { TranscriptCard } from "./TranscriptCard.tsx";
import { useJobEditor } from "./useJobEditor.ts";
import { VersionsPanel } from "./VersionsPanel.tsx";
import { WorkspaceHeader } from "./WorkspaceHeader.tsx";

/**
 * A finished job to work on: its title (renamable), the player, the timed transcript that follows the
 * audio, the interview text, both editable and saved as the user types (against the version they were
 * based on), speakers, versions, exports, one click onward, and the fidelity view.
 */
export function JobWorkspace({
  snapshot: initial,
  onFailedRetry,
  retriedAt = null,
  onReplaced,
}: {
  snapshot: TranscriptionSnapshot;
  onFailedRetry: () => void;
  /** When the user last tried a failed job again on this page (it failed again if it is failed now). */
  retriedAt?: Date | null;
  /** The server's snapshot after a save, rename or restore (kept as the page's query data). */
  onReplaced: (s: TranscriptionSnapshot) => void;
}) {
  const lang = useLang();
  const [snap, setSnap] = useState(initial);
  const saved = (s: TranscriptionSnapshot) => {
    setSnap(s);
    onReplaced(s);
  };
  const editor = useJobEditor(initial, saved);
  const replace = (s: TranscriptionSnapshot) => {
    editor.reset(s);
    saved(s);
  };
  // The interview text being brought up to an edited transcript: the newer text when it is done.
  useInterviewSyncPoll(snap, (s) => {
    editor.rebase(s);
    saved(s);
  });
  const [splitError, setSplitError] = useState<unknown>(null);
  /** A line split in two (pending edits saved first): the page takes the new lines. */
  const split = async (index: number, at: number) => {
    setSplitError(null);
    try {
      await editor.flush();
      replace(await splitLine(snap.jobId, index, { version: editor.currentVersion(), at }));
    } catch (e) {
      setSplitError(e);
    }
  };
  const [expired, setExpired] = useState(initial.audioExpired);
  const audio = useAudioSource(expired ? null : snap.audioFileUrl);
  const gone = expired || audio.status === "expired";
  const player = usePlayer(audio.status === "ready");
  const editable = snap.status === "completed";
  const pending = editor.state !== "saved";
  const canPlay = audio.status === "ready" && !gone;
  const language = snap.detectedLanguage ?? (snap.audioLanguage !== "auto" ? snap.audioLanguage : null);

  const loadLatest = async () => replace(await getSnapshot(snap.jobId));

  return (
    <div className="ws" data-testid="ws" data-job-id={snap.jobId} data-version={snap.version}>
      <WorkspaceHeader snap={snap} editor={editor} language={language} onReload={() => void loadLatest()} />

      {snap.status === "failed" ? (
        <FailedNotice snapshot={snap} onRetried={onFailedRetry} retriedAt={retriedAt} />
      ) : null}
      <JobNotices notices={snap.notices} />

      <PlayerCard
        audio={audio}
        gone={gone}
        player={player}
        editor={editor}
        interviewEditable={snap.rewrittenText !== null && editable}
        onAudioError={() => setExpired(true)}
      />

      <div className="ws-columns">
        <TranscriptCard
          snap={snap}
          editor={editor}
          player={player}
          canPlay={canPlay}
          editable={editable}
          language={language ?? lang}
          splitError={splitError}
          onSplit={(i, at) => void split(i, at)}
        />
        <InterviewCard
          snap={snap}
          editor={editor}
          editable={editable}
          pending={pending}
          onSeek={canPlay ? player.play : null}
          onReplaced={replace}
        />
      </div>

      {editable ? (
        <div className="ws-columns">
          <VersionsPanel jobId={snap.jobId} version={snap.version} busy={pending} onRestored={replace} />
          <FidelityPanel jobId={snap.jobId} version={snap.version} onSeek={canPlay ? player.play : null} />
        </div>
      ) : null}
      {editable ? <SharePanel jobId={snap.jobId} /> : null}
    </div>
  );
}
