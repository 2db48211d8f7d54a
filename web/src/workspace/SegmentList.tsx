import type { JobSpeaker, TranscriptSegment } from "@kikitori/shared";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { formatClock, isoDuration } from "../transcription/time.ts";
import { findMatches, stepMatch } from "./find.ts";
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
  who,
  speakers,
  time,
  canSeek,
  editable,
  onSeek,
  onEdit,
  onSpeaker,
}: {
  segments: readonly TranscriptSegment[];
  texts: readonly string[];
  /** Who says each segment, as edited. */
  who: ReadonlyArray<number | undefined>;
  speakers: readonly JobSpeaker[];
  time: number;
  canSeek: boolean;
  editable: boolean;
  onSeek: (seconds: number) => void;
  onEdit: (index: number, text: string) => void;
  /** Gives a turn (its segments) to another speaker. */
  onSpeaker: (indexes: number[], speaker: number) => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const list = useRef<HTMLOListElement>(null);
  const starts = useMemo(() => segments.map((s) => s.start), [segments]);
  const active = canSeek ? activeSegment(starts, time) : -1;
  const names = useMemo(() => new Map(speakers.map((s) => [s.id, s.name])), [speakers]);
  const speakerName = (id: number) => names.get(id) ?? t("transcription.speakerN", { n: id + 1 });
  const [query, setQuery] = useState("");
  const [at, setAt] = useState(-1);
  const matches = useMemo(() => findMatches(texts, query), [texts, query]);
  const matched = useMemo(() => new Set(matches), [matches]);
  const current = at >= 0 && at < matches.length ? matches[at] : -1;

  /** The segments of the turn starting at `i`: it and the following ones of the same speaker. */
  const turnOf = (i: number) => {
    const speaker = who[i] ?? segments[i].speaker;
    const out = [i];
    for (let j = i + 1; j < segments.length && (who[j] ?? segments[j].speaker) === speaker; j++) out.push(j);
    return out;
  };

  /** Moves to the next (or previous) match: into view, and the audio there. */
  const step = (direction: 1 | -1) => {
    const next = stepMatch(at, matches.length, direction);
    setAt(next);
    if (next < 0) return;
    const index = matches[next];
    list.current?.querySelector<HTMLElement>(`[data-index="${index}"]`)?.scrollIntoView({ block: "center" });
    if (canSeek) onSeek(segments[index].start);
  };

  useEffect(() => {
    const box = list.current;
    if (active < 0 || !box) return;
    if (box.contains(document.activeElement) && document.activeElement?.tagName === "TEXTAREA") return;
    box.querySelector<HTMLElement>(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  return (
    <>
      <div className="ws-find">
        <label htmlFor="ws-find">{t("job.find.label")}</label>
        <input
          id="ws-find"
          type="search"
          data-testid="ws-find"
          value={query}
          dir="auto"
          onChange={(e) => {
            setQuery(e.target.value);
            setAt(-1);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              step(e.shiftKey ? -1 : 1);
            }
          }}
        />
        <span className="muted" role="status" data-testid="ws-find-count" data-count={matches.length}>
          {query.trim()
            ? matches.length
              ? t("job.find.count", { current: Math.max(at, 0) + 1, total: matches.length })
              : t("job.find.none")
            : ""}
        </span>
        <button
          type="button"
          className="btn btn-secondary btn-small"
          disabled={!matches.length}
          aria-label={t("job.find.previous")}
          onClick={() => step(-1)}
        >
          ↑
        </button>
        <button
          type="button"
          className="btn btn-secondary btn-small"
          data-testid="ws-find-next"
          disabled={!matches.length}
          aria-label={t("job.find.next")}
          onClick={() => step(1)}
        >
          ↓
        </button>
      </div>
      <ol ref={list} className="ws-segments" data-testid="ws-segments">
        {segments.map((s, i) => {
          const clock = formatClock(s.start, lang);
          const speaker = who[i] ?? s.speaker;
          const showSpeaker = speaker !== undefined && speaker !== (who[i - 1] ?? segments[i - 1]?.speaker);
          return (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the time button is the keyboard way to seek; a click anywhere on the row is a shortcut
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: edits never add, remove or reorder segments
              key={i}
              data-index={i}
              data-start={s.start}
              data-testid="ws-segment"
              className={`ws-segment${i === active ? " active" : ""}${matched.has(i) ? " match" : ""}${i === current ? " current" : ""}`}
              data-match={matched.has(i) ? "true" : undefined}
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
                {showSpeaker && speaker !== undefined ? (
                  editable && speakers.length > 1 ? (
                    <select
                      className="ws-speaker ws-speaker-select"
                      data-testid="ws-speaker"
                      data-speaker={speaker}
                      value={speaker}
                      aria-label={t("job.turnSpeaker", { time: clock })}
                      onClick={(e) => e.stopPropagation()}
                      onChange={(e) => onSpeaker(turnOf(i), Number(e.target.value))}
                    >
                      {speakers.map((sp) => (
                        <option key={sp.id} value={sp.id}>
                          {sp.name}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <span className="ws-speaker" data-testid="ws-speaker" data-speaker={speaker}>
                      {speakerName(speaker)}
                    </span>
                  )
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
    </>
  );
}
