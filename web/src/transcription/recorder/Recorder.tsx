import { MAX_UPLOAD_BYTES } from "@kikitori/shared";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useAuth } from "../../auth/AuthProvider.tsx";
import { formatClock } from "../../job/time.ts";
import { useUsage } from "../../plan/useUsage.ts";
import { useLang } from "../../routing/useLang.ts";
import { formatFileSize } from "../form.ts";
import { totalSeconds } from "./recording.ts";
import type { KeptRecording } from "./recordingStore.ts";
import { type RecorderPhase, type Take, useRecorder } from "./useRecorder.ts";
import "./recorder.css";

/**
 * The "Record" source of the transcription form: Record, a level meter and the elapsed time,
 * Pause/Resume, Stop, then the recording to play back; the chosen part goes to the form through
 * `onChoose`, like a dropped file, and the form's submit button transcribes it. A recording kept in the
 * browser from an earlier visit is offered on load (`onKept` shows this source).
 */
export function Recorder({
  file,
  processing,
  uploading,
  jobId,
  onChoose,
  onKept,
}: {
  file: File | null;
  processing: boolean;
  uploading: boolean;
  jobId: string | null;
  onChoose: (file: File | null) => void;
  onKept: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const { user } = useAuth();
  const maxBytes = useUsage(user?.uid).data?.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  const r = useRecorder(t("transcription.recorder.fileName"), maxBytes);
  const root = useRef<HTMLDivElement>(null);

  // The part to transcribe goes to the form whenever it changes (null while there is none).
  const chosen = r.phase === "stopped" ? (r.takes[r.selected]?.file ?? null) : null;
  const handed = useRef<File | null>(null);
  useEffect(() => {
    if (chosen === handed.current) return;
    handed.current = chosen;
    onChoose(chosen);
  }, [chosen, onChoose]);

  // A kept recording found on load shows this source.
  const keptShown = r.phase === "kept";
  useEffect(() => {
    if (keptShown) onKept();
  }, [keptShown, onKept]);

  // "Transcribe what was kept" submits the form once the kept recording is its file.
  const submitKept = useRef(false);
  useEffect(() => {
    if (!submitKept.current || !file || file !== chosen) return;
    submitKept.current = false;
    root.current?.closest("form")?.requestSubmit();
  }, [file, chosen]);

  // An upload of this recording accepted (a job id when uploading ends): it is no longer kept here.
  const wasUploading = useRef(uploading);
  useEffect(() => {
    if (wasUploading.current && !uploading && jobId && file) r.markSent(file);
    wasUploading.current = uploading;
  }, [uploading, jobId, file, r.markSent]);

  const busy = processing || r.phase === "starting";
  return (
    <div className="field rec" ref={root} data-testid="rec" data-phase={r.phase}>
      <span className="field-label" id="rec-label">
        {t("transcription.recorder.label")}
      </span>
      {r.notice ? (
        <p className="field-error" role="alert" data-testid="rec-notice" data-notice={r.notice}>
          {t(`transcription.recorder.notices.${r.notice}`, { size: formatFileSize(maxBytes, lang) })}
        </p>
      ) : null}
      {r.phase === "kept" && r.kept ? (
        <KeptOffer
          kept={r.kept}
          disabled={busy}
          onResume={() => void r.start(r.kept ?? undefined)}
          onTranscribe={() => {
            submitKept.current = true;
            void r.takeKept();
          }}
          onDiscard={r.discard}
        />
      ) : null}
      {r.phase === "idle" || r.phase === "starting" || r.phase === "loading" ? (
        <div className="rec-panel">
          <button
            type="button"
            className="btn btn-primary rec-record"
            onClick={() => void r.start()}
            disabled={busy || r.phase === "loading" || r.notice === "unsupported"}
            aria-busy={r.phase === "starting"}
            data-testid="rec-record"
          >
            <span className="rec-dot" aria-hidden="true" />
            {t("transcription.recorder.record")}
          </button>
          <p className="hint">
            {r.phase === "starting" ? t("transcription.recorder.starting") : t("transcription.recorder.hint")}
          </p>
        </div>
      ) : null}
      {r.phase === "recording" || r.phase === "paused" ? (
        <LivePanel
          phase={r.phase}
          elapsed={r.elapsed}
          level={r.level}
          onPause={r.pause}
          onResume={r.resume}
          onStop={r.stop}
        />
      ) : null}
      {r.phase === "stopped" ? (
        <Review
          takes={r.takes}
          selected={r.selected}
          onSelect={r.setSelected}
          elapsed={r.elapsed}
          disabled={processing}
          onDiscard={r.discard}
        />
      ) : null}
    </div>
  );
}

function KeptOffer({
  kept,
  disabled,
  onResume,
  onTranscribe,
  onDiscard,
}: {
  kept: KeptRecording;
  disabled: boolean;
  onResume: () => void;
  onTranscribe: () => void;
  onDiscard: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const values = {
    date: new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(kept.startedAt),
    length: formatClock(totalSeconds(kept.parts), lang, { padMinutes: true }),
    size: formatFileSize(kept.bytes, lang),
  };
  return (
    <div className="rec-panel rec-kept" role="status" data-testid="rec-kept">
      <p>
        {kept.state === "recording"
          ? t("transcription.recorder.keptCut", values)
          : t("transcription.recorder.keptStopped", values)}
      </p>
      <div className="rec-buttons">
        <button type="button" className="btn btn-primary" onClick={onTranscribe} disabled={disabled}>
          {t("transcription.recorder.transcribeKept")}
        </button>
        <button type="button" className="btn btn-secondary" onClick={onResume} disabled={disabled}>
          {t("transcription.recorder.resumeRecording")}
        </button>
        <button type="button" className="btn btn-danger-text" onClick={onDiscard} disabled={disabled}>
          {t("transcription.recorder.discard")}
        </button>
      </div>
    </div>
  );
}

function LivePanel({
  phase,
  elapsed,
  level,
  onPause,
  onResume,
  onStop,
}: {
  phase: RecorderPhase;
  elapsed: number;
  level: () => number;
  onPause: () => void;
  onResume: () => void;
  onStop: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const paused = phase === "paused";
  return (
    <div className="rec-panel rec-live" data-testid="rec-live">
      <div className="rec-status">
        <span className={paused ? "rec-dot paused" : "rec-dot live"} aria-hidden="true" />
        <span>{paused ? t("transcription.recorder.paused") : t("transcription.recorder.recording")}</span>
        <span
          className="rec-elapsed"
          role="timer"
          aria-label={t("transcription.recorder.elapsed")}
          data-testid="rec-elapsed"
        >
          {formatClock(elapsed, lang, { padMinutes: true })}
        </span>
      </div>
      <LevelMeter level={level} label={t("transcription.recorder.level")} />
      <div className="rec-buttons">
        {paused ? (
          <button type="button" className="btn btn-secondary" onClick={onResume} data-testid="rec-resume">
            {t("transcription.recorder.resume")}
          </button>
        ) : (
          <button type="button" className="btn btn-secondary" onClick={onPause} data-testid="rec-pause">
            {t("transcription.recorder.pause")}
          </button>
        )}
        <button type="button" className="btn btn-primary" onClick={onStop} data-testid="rec-stop">
          <span className="rec-square" aria-hidden="true" />
          {t("transcription.recorder.stop")}
        </button>
      </div>
    </div>
  );
}

/** The microphone level (a native meter, 0…100), drawn every frame without re-rendering React. */
function LevelMeter({ level, label }: { level: () => number; label: string }) {
  const meter = useRef<HTMLMeterElement>(null);
  useEffect(() => {
    let frame = 0;
    const draw = () => {
      const value = Math.round(level() * 100);
      if (meter.current && meter.current.value !== value) meter.current.value = value;
      frame = requestAnimationFrame(draw);
    };
    frame = requestAnimationFrame(draw);
    return () => cancelAnimationFrame(frame);
  }, [level]);
  return (
    <meter
      ref={meter}
      className="rec-meter"
      min={0}
      max={100}
      low={5}
      high={90}
      optimum={50}
      aria-label={label}
      data-testid="rec-meter"
    />
  );
}

function Review({
  takes,
  selected,
  onSelect,
  elapsed,
  disabled,
  onDiscard,
}: {
  takes: Take[];
  selected: number;
  onSelect: (i: number) => void;
  elapsed: number;
  disabled: boolean;
  onDiscard: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const allSent = takes.every((tk) => tk.sent);
  const several = takes.length > 1;
  const joined = takes.some((tk) => tk.whole);
  return (
    <div className="rec-panel rec-review" data-testid="rec-review">
      <p className="rec-status">
        <span>{t("transcription.recorder.recorded")}</span>
        <span className="rec-elapsed" data-testid="rec-elapsed">
          {formatClock(elapsed, lang, { padMinutes: true })}
        </span>
      </p>
      {several ? (
        <p className="hint">{joined ? t("transcription.recorder.wholeHint") : t("transcription.recorder.partsHint")}</p>
      ) : null}
      <ul className="rec-takes">
        {takes.map((take, i) => (
          <li key={take.url} className={i === selected ? "rec-take chosen" : "rec-take"}>
            {several ? (
              <label className="rec-take-choice">
                <input
                  type="radio"
                  name="rec-take"
                  checked={i === selected}
                  onChange={() => onSelect(i)}
                  disabled={disabled}
                />
                {take.whole
                  ? t("transcription.recorder.whole", {
                      length: formatClock(take.seconds, lang, { padMinutes: true }),
                    })
                  : t("transcription.recorder.part", {
                      number: take.number,
                      length: formatClock(take.seconds, lang, { padMinutes: true }),
                    })}
              </label>
            ) : null}
            {/* biome-ignore lint/a11y/useMediaCaption: the user's own recording has no captions yet */}
            <audio controls preload="metadata" src={take.url} data-testid="rec-audio" />
            <span className="muted rec-take-meta">
              {take.file.name} · {formatFileSize(take.file.size, lang)}
              {take.sent ? ` · ${t("transcription.recorder.sent")}` : ""}
            </span>
          </li>
        ))}
      </ul>
      <p className="hint">{allSent ? t("transcription.recorder.allSent") : t("transcription.recorder.ready")}</p>
      <div className="rec-buttons">
        <button type="button" className="btn btn-danger-text" onClick={onDiscard} disabled={disabled}>
          {allSent ? t("transcription.recorder.newRecording") : t("transcription.recorder.discard")}
        </button>
      </div>
    </div>
  );
}
