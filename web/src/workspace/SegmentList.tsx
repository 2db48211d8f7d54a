import type { JobSpeaker, TranscriptSegment } from "@kikitori/shared";
import { useEffect, useMemo, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { formatClock, isoDuration } from "../transcription/time.ts";
import { activeSegment } from "./usePlayer.ts";

/**
 * The timed transcript of the job page: one row per segment with its start (data-start, in seconds),
 * its speaker where the voice changes, and its text, editable once the job is complete. Clicking a row
 * or its time seeks the audio there; the row playing is marked (aria-current) and kept in view, unless
 * the user is typing in the list.
 */
export function SegmentList({
  segments,
  texts,
  speakers,
  time,
  canSeek,
  editable,
  onSeek,
  onEdit,
}: {
  segments: readonly TranscriptSegment[];
  texts: readonly string[];
  speakers: readonly JobSpeaker[];
  time: number;
  canSeek: boolean;
  editable: boolean;
  onSeek: (seconds: number) => void;
  onEdit: (index: number, text: string) => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const list = useRef<HTMLOListElement>(null);
  const starts = useMemo(() => segments.map((s) => s.start), [segments]);
  const active = canSeek ? activeSegment(starts, time) : -1;
  const names = useMemo(() => new Map(speakers.map((s) => [s.id, s.name])), [speakers]);
  const speakerName = (id: number) => names.get(id) ?? t("transcription.speakerN", { n: id + 1 });

  useEffect(() => {
    const box = list.current;
    if (active < 0 || !box) return;
    if (box.contains(document.activeElement) && document.activeElement?.tagName === "TEXTAREA") return;
    box.querySelector<HTMLElement>(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  return (
    <ol ref={list} className="ws-segments" data-testid="ws-segments">
      {segments.map((s, i) => {
        const clock = formatClock(s.start, lang);
        const showSpeaker = s.speaker !== undefined && s.speaker !== segments[i - 1]?.speaker;
        return (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the time button is the keyboard way to seek; a click anywhere on the row is a shortcut
          <li
            // biome-ignore lint/suspicious/noArrayIndexKey: edits never add, remove or reorder segments
            key={i}
            data-index={i}
            data-start={s.start}
            data-testid="ws-segment"
            className={i === active ? "ws-segment active" : "ws-segment"}
            aria-current={i === active ? "true" : undefined}
            onClick={canSeek ? () => onSeek(s.start) : undefined}
          >
            <div className="ws-segment-head">
              <button
                type="button"
                className="ws-time"
                data-testid="ws-seek"
                disabled={!canSeek}
                onClick={(e) => {
                  e.stopPropagation();
                  onSeek(s.start);
                }}
                aria-label={t("job.seekTo", { time: clock })}
              >
                <time dateTime={isoDuration(s.start)}>{clock}</time>
              </button>
              {showSpeaker && s.speaker !== undefined ? (
                <span className="ws-speaker" data-testid="ws-speaker" data-speaker={s.speaker}>
                  {speakerName(s.speaker)}
                </span>
              ) : null}
            </div>
            <textarea
              className="ws-segment-text"
              data-testid="ws-segment-text"
              value={texts[i] ?? s.text}
              readOnly={!editable}
              rows={1}
              dir="auto"
              spellCheck
              aria-label={t("job.segmentText", { time: clock })}
              onChange={(e) => onEdit(i, e.target.value)}
            />
          </li>
        );
      })}
    </ol>
  );
}
