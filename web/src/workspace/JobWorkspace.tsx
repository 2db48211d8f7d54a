import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { errorText } from "../i18n/errorText.ts";
import { formatAmount } from "../plan/format.ts";
import { useLang } from "../routing/useLang.ts";
import { getSnapshot } from "../transcription/api.ts";
import { languageName } from "../transcription/audioLanguage.ts";
import { ExportMenu } from "../transcription/ExportMenu.tsx";
import { OnwardLinks } from "../transcription/OnwardLinks.tsx";
import { SpeakersPanel } from "../transcription/SpeakersPanel.tsx";
import { useAudioSource } from "../transcription/useAudioSource.ts";
import { useSpeakerName } from "../transcription/useSpeakerNames.ts";
import { DeleteJob } from "./DeleteJob.tsx";
import { FailedNotice } from "./FailedNotice.tsx";
import { FidelityPanel } from "./FidelityPanel.tsx";
import { formatDateTime, formatRate } from "./format.ts";
import { InsertTimestamp } from "./InsertTimestamp.tsx";
import { InterviewSyncStatus, useInterviewSyncPoll } from "./InterviewSync.tsx";
import { QuotesPanel } from "./QuotesPanel.tsx";
import { SaveStatus } from "./SaveStatus.tsx";
import { SegmentList } from "./SegmentList.tsx";
import { splitLine } from "./api.ts";
import { SharePanel } from "./SharePanel.tsx";
import { useJobEditor } from "./useJobEditor.ts";
import { PLAYBACK_RATES, usePlayer } from "./usePlayer.ts";
import { VersionsPanel } from "./VersionsPanel.tsx";

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
  const { t } = useTranslation();
  const lang = useLang();
  const shownName = useSpeakerName();
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
  const language = snap.detectedLanguage ?? (snap.audioLanguage !== "auto" ? snap.audioLanguage : null);

  const loadLatest = async () => replace(await getSnapshot(snap.jobId));

  return (
    <div className="ws" data-testid="ws" data-job-id={snap.jobId} data-version={snap.version}>
      <h1 className="visually-hidden" data-testid="page-title" dir="auto">
        {snap.title}
      </h1>
      <div className="ws-head">
        <label className="visually-hidden" htmlFor="ws-title">
          {t("job.titleLabel")}
        </label>
        <input
          id="ws-title"
          className="ws-title"
          data-testid="ws-title"
          value={editor.values.title}
          maxLength={255}
          dir="auto"
          placeholder={snap.originalName}
          onChange={(e) => editor.setTitle(e.target.value)}
          onBlur={() => void editor.save()}
        />
        {/* A failed job cannot be edited: its failure is shown below, not "All changes saved". */}
        {snap.status === "failed" ? null : (
          <SaveStatus
            state={editor.state}
            error={editor.error}
            onReload={() => void loadLatest()}
            onRetry={() => void editor.save()}
          />
        )}
        <DeleteJob jobId={snap.jobId} />
      </div>
      <p className="ws-meta muted">
        <time dateTime={snap.createdAt}>{formatDateTime(snap.createdAt, lang)}</time>
        <span>{t("transcription.durationMinutes", { value: formatAmount(snap.durationSeconds / 60, lang) })}</span>
        {language ? <span>{t("transcription.language", { language: languageName(language, lang) })}</span> : null}
        <span data-testid="ws-file-type">
          {t("fileTypes.label")}: {t(`fileTypes.${snap.model}`)}
        </span>
        {snap.tone ? (
          <span>
            {t("tones.label")}: {t(`tones.${snap.tone}`)}
          </span>
        ) : null}
        {snap.speakers.length ? (
          <span data-testid="ws-speaker-names">{snap.speakers.map(shownName).join(", ")}</span>
        ) : null}
        {snap.originalName !== snap.title ? <span dir="auto">{snap.originalName}</span> : null}
      </p>

      {snap.status === "failed" ? (
        <FailedNotice snapshot={snap} onRetried={onFailedRetry} retriedAt={retriedAt} />
      ) : null}

      <div className="card ws-player">
        {gone ? (
          <p className="alert alert-info" role="status" data-testid="ws-audio-gone">
            {t("job.audioGone")}
          </p>
        ) : audio.status === "ready" ? (
          <>
            {/* biome-ignore lint/a11y/useMediaCaption: the timed transcript below is the text alternative */}
            <audio
              ref={player.attach}
              className="tx-audio"
              data-testid="ws-audio"
              controls
              preload="auto"
              src={audio.src}
              onError={(e) => {
                if (e.currentTarget.error) setExpired(true);
              }}
            />
            <div className="ws-player-row">
              <label className="ws-speed">
                {t("job.speed")}
                <select
                  data-testid="ws-speed"
                  value={String(player.rate)}
                  onChange={(e) => player.setRate(Number(e.target.value))}
                >
                  {PLAYBACK_RATES.map((r) => (
                    <option key={r} value={String(r)}>
                      {formatRate(r, lang)}
                    </option>
                  ))}
                </select>
              </label>
              {snap.rewrittenText !== null && editable ? (
                <InsertTimestamp
                  targetId="ws-interview"
                  value={editor.values.interview}
                  currentTime={() => player.ref.current?.currentTime ?? player.time}
                  onChange={editor.setInterview}
                />
              ) : null}
            </div>
            <p className="hint" data-testid="ws-keys">
              {t("job.keys")} {t("job.keysTyping")} {t("job.keysMore")} {t("job.keysLines")}
            </p>
          </>
        ) : audio.status === "error" ? (
          <p className="muted">{t("transcription.audioLoadFailed")}</p>
        ) : (
          <p className="status-line" role="status">
            <span className="spinner" aria-hidden="true" />
            {t("transcription.audioLoading")}
          </p>
        )}
      </div>

      <div className="ws-columns">
        <section className="card ws-transcript" aria-labelledby="ws-transcript-title">
          <h2 id="ws-transcript-title">{t("transcription.transcriptTitle")}</h2>
          {snap.segments.length ? (
            <SegmentList
              segments={snap.segments}
              texts={editor.values.segments}
              who={editor.values.speakers}
              speakers={snap.speakers}
              time={player.time}
              canSeek={audio.status === "ready" && !gone}
              editable={editable}
              onSeek={player.seek}
              onPlay={player.play}
              onEdit={editor.setSegment}
              onSpeaker={editor.setSpeaker}
              onSplit={editable ? (i, at) => void split(i, at) : undefined}
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
          {splitError ? (
            <ErrorAlert message={errorText(t, splitError)} error={splitError} testId="ws-split-error" />
          ) : null}
          {snap.segments.length > 0 && snap.transcription !== null ? (
            <QuotesPanel
              jobId={snap.jobId}
              version={snap.version}
              segments={snap.segments}
              texts={editor.values.segments}
              speakers={snap.speakers}
              language={language ?? lang}
              onPlaySpan={audio.status === "ready" && !gone ? player.playSpan : null}
              onSeek={audio.status === "ready" && !gone ? player.seek : null}
              beforeSave={editor.flush}
              interviewId="ws-interview"
            />
          ) : null}
        </section>

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
              onSeek={audio.status === "ready" && !gone ? player.play : null}
              onResolved={replace}
            />
          ) : null}
          {snap.rewrittenText !== null && snap.speakers.length > 1 ? (
            pending ? (
              <p className="hint">{t("job.speakersAfterSave")}</p>
            ) : (
              <SpeakersPanel jobId={snap.jobId} speakers={snap.speakers} onRenamed={replace} />
            )
          ) : null}
          {snap.rewrittenText ? <OnwardLinks text={editor.values.interview} /> : null}
          {snap.transcription !== null ? (
            <ExportMenu jobId={snap.jobId} interviewReady={snap.rewrittenText !== null} beforeExport={editor.flush} />
          ) : null}
        </section>
      </div>

      {editable ? (
        <div className="ws-columns">
          <VersionsPanel jobId={snap.jobId} version={snap.version} busy={pending} onRestored={replace} />
          <FidelityPanel
            jobId={snap.jobId}
            version={snap.version}
            onSeek={audio.status === "ready" && !gone ? player.play : null}
          />
        </div>
      ) : null}
      {editable ? <SharePanel jobId={snap.jobId} /> : null}
    </div>
  );
}
