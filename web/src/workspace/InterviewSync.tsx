import type { SyncConflict, TranscriptionSnapshot } from "@kikitori/shared";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../components/ErrorAlert.tsx";
import { errorText } from "../i18n/errorText.ts";
import { formatClock } from "../job/time.ts";
import { useLang } from "../routing/useLang.ts";
import { getSnapshot } from "../transcription/api.ts";
import { resolveSyncConflict } from "./api.ts";

/** How often the page asks for the interview text while it is being brought up to the transcript. */
export const SYNC_POLL_MS = 1500;

/**
 * While the interview text is being brought up to an edited transcript, reads the job again every
 * SYNC_POLL_MS until it is done, and hands over the newer snapshot.
 */
export function useInterviewSyncPoll(snap: TranscriptionSnapshot, onLatest: (s: TranscriptionSnapshot) => void) {
  const latest = useRef(onLatest);
  latest.current = onLatest;
  useEffect(() => {
    if (snap.interviewSync !== "updating") return;
    let stopped = false;
    const timer = setInterval(async () => {
      try {
        const next = await getSnapshot(snap.jobId);
        if (!stopped && (next.interviewSync !== "updating" || next.version !== snap.version)) latest.current(next);
      } catch {
        // A passing fault: asked again at the next tick.
      }
    }, SYNC_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [snap.jobId, snap.version, snap.interviewSync]);
}

/**
 * Whether the interview text follows the transcript, and each turn changed in the transcript whose
 * interview wording the user had edited by hand: the new wording beside theirs, to pick one.
 */
export function InterviewSyncStatus({
  snap,
  version,
  busy,
  onSeek,
  onResolved,
}: {
  snap: TranscriptionSnapshot;
  /** The version the page's texts are based on. */
  version: () => number;
  /** Edits are waiting to be saved: resolving waits for them. */
  busy: boolean;
  onSeek: ((seconds: number) => void) | null;
  onResolved: (s: TranscriptionSnapshot) => void;
}) {
  const { t } = useTranslation();
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState<string | null>(null);
  const resolve = async (c: SyncConflict, keep: "transcript" | "interview") => {
    setPending(c.id);
    setError(null);
    try {
      onResolved(await resolveSyncConflict(snap.jobId, { version: version(), conflict: c.id, keep }));
    } catch (e) {
      setError(e);
    } finally {
      setPending(null);
    }
  };
  return (
    <div className="ws-sync" data-testid="ws-sync" data-state={snap.interviewSync}>
      <p className={snap.interviewSync === "updating" ? "status-line" : "hint"} role="status">
        {snap.interviewSync === "updating" ? <span className="spinner" aria-hidden="true" /> : null}
        {snap.interviewSync === "updating"
          ? t("job.sync.updating")
          : snap.interviewSync === "conflicts"
            ? t("job.sync.conflicts", { count: snap.interviewConflicts.length })
            : t("job.sync.inSync")}
      </p>
      {snap.interviewConflicts.length ? (
        <ul className="ws-sync-conflicts">
          {snap.interviewConflicts.map((c) => (
            <ConflictItem
              key={c.id}
              conflict={c}
              disabled={busy || pending !== null}
              onSeek={onSeek}
              onKeep={(keep) => void resolve(c, keep)}
            />
          ))}
        </ul>
      ) : null}
      {error ? <ErrorAlert message={errorText(t, error)} error={error} /> : null}
    </div>
  );
}

function ConflictItem({
  conflict: c,
  disabled,
  onSeek,
  onKeep,
}: {
  conflict: SyncConflict;
  disabled: boolean;
  onSeek: ((seconds: number) => void) | null;
  onKeep: (keep: "transcript" | "interview") => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const clock = formatClock(c.start, lang);
  return (
    <li className="ws-sync-conflict" data-testid="ws-sync-conflict" data-conflict={c.id}>
      <p className="ws-sync-head">
        <strong>{t("job.sync.changedInTranscript")}</strong>{" "}
        {onSeek ? (
          <button
            type="button"
            className="btn btn-secondary btn-small"
            aria-label={t("job.seekTo", { time: clock })}
            onClick={() => onSeek(c.start)}
          >
            ▶ {clock}
          </button>
        ) : (
          <span className="muted">{clock}</span>
        )}
      </p>
      <div className="ws-sync-pair">
        <figure>
          <figcaption>{t("job.sync.newWording")}</figcaption>
          <p dir="auto" data-testid="ws-sync-transcript">
            {c.transcriptText || "—"}
          </p>
        </figure>
        <figure>
          <figcaption>{t("job.sync.yourWording")}</figcaption>
          <p dir="auto" data-testid="ws-sync-interview">
            {c.interviewText || "—"}
          </p>
        </figure>
      </div>
      <div className="ws-sync-actions">
        <button
          type="button"
          className="btn btn-primary btn-small"
          data-testid="ws-sync-take"
          disabled={disabled}
          onClick={() => onKeep("transcript")}
        >
          {t("job.sync.useNew")}
        </button>
        <button
          type="button"
          className="btn btn-secondary btn-small"
          data-testid="ws-sync-keep"
          disabled={disabled}
          onClick={() => onKeep("interview")}
        >
          {t("job.sync.keepMine")}
        </button>
      </div>
    </li>
  );
}
