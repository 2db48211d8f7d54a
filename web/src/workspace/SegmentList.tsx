import type { JobSpeaker, TranscriptSegment } from "@kikitori/shared";
import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { formatClock, isoDuration } from "../transcription/time.ts";
import { useSpeakerName } from "../transcription/useSpeakerNames.ts";
import { findMatches, stepMatch } from "./find.ts";
import { activeSegment } from "./usePlayer.ts";

/** The controls of one transcript line, in reading order. */
type Control = "time" | "speaker" | "text" | "split";
const CONTROLS: readonly Control[] = ["time", "speaker", "text", "split"];

/**
 * Where a line is split when the caret gives no place inside it: at the sentence end nearest the
 * middle, else at the space nearest the middle, else (text without spaces) in the middle.
 */
export function splitPoint(text: string, caret: number | undefined): number {
  if (caret !== undefined && caret > 0 && caret < text.trimEnd().length && text.slice(0, caret).trim()) return caret;
  const mid = text.length / 2;
  const ends = [...text.matchAll(/[.!?。！？]+\s*/g)]
    .map((m) => (m.index ?? 0) + m[0].length)
    .filter((i) => i < text.length);
  const spaces = [...text.matchAll(/\s+/g)].map((m) => m.index ?? 0).filter((i) => i > 0);
  const near = (xs: number[]) => xs.reduce((best, i) => (Math.abs(i - mid) < Math.abs(best - mid) ? i : best));
  if (ends.length) return near(ends);
  if (spaces.length) return near(spaces);
  return Math.max(1, Math.floor(mid));
}

/**
 * The timed transcript of the job page (and of the finished result on the transcription screen): one
 * row per segment with its start (data-start, in seconds), its speaker where the voice changes, and its
 * text, editable once the job is complete. Clicking a row or its time seeks the audio there; Enter on a
 * time plays from there. The row playing is marked (aria-current) and kept in view, unless the user is
 * typing in the list.
 *
 * Keyboard: one Tab stop per line (a roving tabindex): the kind of control last used (time, speaker or
 * text) is the line's stop; ↑/↓ on a time or speaker go to the line above/below, ←/→ to the line's
 * other controls, Home/End to the first/last line, Escape in a text back to its time.
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
  onPlay,
  onEdit,
  onSpeaker,
  onSplit,
  plainText = false,
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
  /** Seeks and plays (Enter on a time); seeking only when absent. */
  onPlay?: (seconds: number) => void;
  onEdit: (index: number, text: string) => void;
  /** Read-only text as plain paragraphs rather than fields (the transcription screen's result). */
  plainText?: boolean;
  /** Gives a turn (its segments) to another speaker. */
  onSpeaker: (indexes: number[], speaker: number) => void;
  /** Splits a line in two at a character offset (absent: lines cannot be split). */
  onSplit?: (index: number, at: number) => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const list = useRef<HTMLOListElement>(null);
  const starts = useMemo(() => segments.map((s) => s.start), [segments]);
  const active = canSeek ? activeSegment(starts, time) : -1;
  const shownName = useSpeakerName();
  const names = useMemo(() => new Map(speakers.map((s) => [s.id, shownName(s)])), [speakers, shownName]);
  const speakerName = (id: number) => names.get(id) ?? t("transcription.speakerN", { n: id + 1 });
  const [query, setQuery] = useState("");
  const [at, setAt] = useState(-1);
  const matches = useMemo(() => findMatches(texts, query), [texts, query]);
  const matched = useMemo(() => new Set(matches), [matches]);
  const current = at >= 0 && at < matches.length ? matches[at] : -1;
  // The roving tabindex: which kind of control is each line's Tab stop.
  const [stop, setStop] = useState<Control>("time");
  const textFocusable = !plainText;
  /** Where the caret was last in each line's text (the place a split goes). */
  const carets = useRef(new Map<number, number>());
  const perLineSpeaker = editable && speakers.length > 1;

  /** The controls a line has, in order (a disabled time is not focusable). */
  const controlsOf = (li: HTMLElement): HTMLElement[] =>
    CONTROLS.map((c) => li.querySelector<HTMLElement>(`[data-control="${c}"]`)).filter(
      (el): el is HTMLElement => !!el && !(el as HTMLButtonElement).disabled,
    );

  /** The line's Tab stop: its control of the kind in use, else its first focusable one. */
  const stopOf = (hasSpeaker: boolean): Control => {
    const has = (c: Control) =>
      c === "time"
        ? canSeek
        : c === "speaker"
          ? hasSpeaker && editable && speakers.length > 1
          : c === "split"
            ? !!onSplit && editable
            : textFocusable;
    if (has(stop)) return stop;
    return CONTROLS.find(has) ?? "time";
  };

  const focusLine = (index: number, control: Control) => {
    const li = list.current?.querySelector<HTMLElement>(`[data-index="${index}"]`);
    if (!li) return;
    const wanted = li.querySelector<HTMLElement>(`[data-control="${control}"]`);
    const target = wanted && !(wanted as HTMLButtonElement).disabled ? wanted : controlsOf(li)[0];
    target?.focus();
  };

  const onLineKey = (e: KeyboardEvent<HTMLElement>, i: number, control: Control) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const li = e.currentTarget.closest("li");
    if (!li) return;
    if (control === "text") {
      if (e.key === "Escape") {
        e.preventDefault();
        focusLine(i, "time");
      }
      return;
    }
    const rtl = getComputedStyle(li).direction === "rtl";
    const own = controlsOf(li);
    const at = own.indexOf(e.currentTarget as HTMLElement);
    let move: (() => void) | null = null;
    if (e.key === "ArrowDown" && i + 1 < segments.length) move = () => focusLine(i + 1, control);
    else if (e.key === "ArrowUp" && i > 0) move = () => focusLine(i - 1, control);
    else if (e.key === "Home") move = () => focusLine(0, control);
    else if (e.key === "End") move = () => focusLine(segments.length - 1, control);
    else if (e.key === (rtl ? "ArrowLeft" : "ArrowRight") && at + 1 < own.length) move = () => own[at + 1].focus();
    else if (e.key === (rtl ? "ArrowRight" : "ArrowLeft") && at > 0) move = () => own[at - 1].focus();
    else if (e.key === "Enter" && control === "time" && canSeek) {
      move = () => (onPlay ?? onSeek)(segments[i].start);
    }
    if (!move) return;
    // The player's own ← → keys must not act as well.
    e.preventDefault();
    e.stopPropagation();
    move();
  };

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
          const lineStop = stopOf(showSpeaker || perLineSpeaker);
          const tab = (c: Control) => (c === lineStop ? 0 : -1);
          return (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the time button is the keyboard way to seek; a click anywhere on the row is a shortcut
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: a split replaces the whole list (a new snapshot)
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
                  data-control="time"
                  tabIndex={tab("time")}
                  disabled={!canSeek}
                  onFocus={() => setStop("time")}
                  onKeyDown={(e) => onLineKey(e, i, "time")}
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
                      data-control="speaker"
                      tabIndex={tab("speaker")}
                      onFocus={() => setStop("speaker")}
                      onKeyDown={(e) => {
                        // ↑/↓ keep choosing a speaker, as in any menu; ←/→ move along the line.
                        if (e.key === "ArrowUp" || e.key === "ArrowDown") return;
                        onLineKey(e, i, "speaker");
                      }}
                      value={speaker}
                      aria-label={t("job.turnSpeaker", { time: clock })}
                      onClick={(e) => e.stopPropagation()}
                      onChange={(e) => onSpeaker(turnOf(i), Number(e.target.value))}
                    >
                      {speakers.map((sp) => (
                        <option key={sp.id} value={sp.id}>
                          {shownName(sp)}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <span className="ws-speaker" data-testid="ws-speaker" data-speaker={speaker}>
                      {speakerName(speaker)}
                    </span>
                  )
                ) : perLineSpeaker && speaker !== undefined ? (
                  <select
                    className="ws-speaker ws-speaker-line"
                    data-testid="ws-line-speaker"
                    data-speaker={speaker}
                    data-control="speaker"
                    tabIndex={tab("speaker")}
                    onFocus={() => setStop("speaker")}
                    onKeyDown={(e) => {
                      if (e.key === "ArrowUp" || e.key === "ArrowDown") return;
                      onLineKey(e, i, "speaker");
                    }}
                    value={speaker}
                    aria-label={t("job.lineSpeaker", { time: clock })}
                    onClick={(e) => e.stopPropagation()}
                    onChange={(e) => onSpeaker([i], Number(e.target.value))}
                  >
                    {speakers.map((sp) => (
                      <option key={sp.id} value={sp.id}>
                        {shownName(sp)}
                      </option>
                    ))}
                  </select>
                ) : null}
                {onSplit && editable && !plainText ? (
                  <button
                    type="button"
                    className="ws-split btn btn-secondary btn-small"
                    data-testid="ws-split"
                    data-control="split"
                    tabIndex={tab("split")}
                    onFocus={() => setStop("split")}
                    onKeyDown={(e) => onLineKey(e, i, "split")}
                    aria-label={t("job.splitLine", { time: clock })}
                    title={t("job.splitLine", { time: clock })}
                    onClick={(e) => {
                      e.stopPropagation();
                      const text = texts[i] ?? s.text;
                      onSplit(i, splitPoint(text, carets.current.get(i)));
                    }}
                  >
                    ✂
                  </button>
                ) : null}
              </div>
              {plainText ? (
                <p className="ws-segment-text ws-segment-plain" data-testid="ws-segment-text" dir="auto">
                  {texts[i] ?? s.text}
                </p>
              ) : (
                <textarea
                  className="ws-segment-text"
                  data-testid="ws-segment-text"
                  data-control="text"
                  tabIndex={tab("text")}
                  value={texts[i] ?? s.text}
                  readOnly={!editable}
                  rows={1}
                  dir="auto"
                  spellCheck
                  aria-label={t("job.segmentText", { time: clock })}
                  onFocus={() => setStop("text")}
                  onSelect={(e) => carets.current.set(i, e.currentTarget.selectionStart)}
                  onKeyDown={(e) => onLineKey(e, i, "text")}
                  onChange={(e) => onEdit(i, e.target.value)}
                />
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}
