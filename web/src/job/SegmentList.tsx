import type { JobSpeaker, TranscriptSegment } from "@kikitori/shared";
import { cloneElement, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { FindBar } from "./FindBar.tsx";
import { findMatches, stepMatch } from "./find.ts";
import { type LineActions, SegmentRow } from "./SegmentRow.tsx";
import { activeSegment } from "./usePlayer.ts";
import { type Control, useRovingLines } from "./useRovingLines.ts";
import { useSpeakerName } from "./useSpeakerNames.ts";

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

type SegmentListProps = {
  segments: readonly TranscriptSegment[];
  texts: readonly string[];
  /** Who says each segment, as edited. */
  who: ReadonlyArray<number | undefined>;
  speakers: readonly JobSpeaker[];
  time: number;
  canSeek: boolean;
  editable: boolean;
  /** The language of the transcript (how words are told apart where a segment has no word times). */
  language: string;
  onSeek: (seconds: number) => void;
  /** Seeks and plays (Enter on a time, a click on a word); seeking only when absent. */
  onPlay?: (seconds: number) => void;
  onEdit: (index: number, text: string) => void;
  /** Read-only text as words rather than fields (the read view, the shared page, the transcription screen). */
  plainText?: boolean;
  /** Gives a turn (its segments) to another speaker. */
  onSpeaker: (indexes: number[], speaker: number) => void;
  /** Splits a line in two at a character offset (absent: lines cannot be split). */
  onSplit?: (index: number, at: number) => void;
};

/**
 * What the lines do, as one object that stays the same from render to render (memoised rows keep it)
 * and calls the latest props.
 */
function useLineActions(props: {
  setStop: LineActions["setStop"];
  onLineKey: LineActions["onLineKey"];
  onSeek: (seconds: number) => void;
  onPlay?: (seconds: number) => void;
  onEdit: (index: number, text: string) => void;
  onSpeaker: (indexes: number[], speaker: number) => void;
  onSplit?: (index: number, at: number) => void;
  /** The segments of the turn starting at a line. */
  turnOf: (i: number) => number[];
  texts: readonly string[];
}): LineActions {
  const latest = useRef(props);
  latest.current = props;
  /** Where the caret was last in each line's text (the place a split goes). */
  const carets = useRef(new Map<number, number>());
  const { setStop } = props;
  return useMemo<LineActions>(
    () => ({
      setStop,
      onLineKey: (e, i, c) => latest.current.onLineKey(e, i, c),
      seek: (seconds) => latest.current.onSeek(seconds),
      play: (seconds) => (latest.current.onPlay ?? latest.current.onSeek)(seconds),
      edit: (i, text) => latest.current.onEdit(i, text),
      turnSpeaker: (i, sp) => latest.current.onSpeaker(latest.current.turnOf(i), sp),
      lineSpeaker: (i, sp) => latest.current.onSpeaker([i], sp),
      split: (i) => latest.current.onSplit?.(i, splitPoint(latest.current.texts[i] ?? "", carets.current.get(i))),
      caret: (i, caret) => carets.current.set(i, caret),
    }),
    [setStop],
  );
}

/**
 * The rows of the list. Each row is built as when it is not playing, again only when the lines change
 * (not with the player's position); the row playing gets the position (its word is marked), and
 * every other row stays the same element as before, which React skips.
 */
function useRows({
  segments,
  texts,
  who,
  speakers,
  speakerName,
  editable,
  canSeek,
  plainText,
  language,
  matched,
  current,
  perLineSpeaker,
  stopWith,
  stopWithout,
  splittable,
  actions,
  active,
  time,
}: Pick<SegmentListProps, "segments" | "texts" | "who" | "speakers" | "editable" | "canSeek" | "language"> & {
  speakerName: (id: number) => string;
  plainText: boolean;
  matched: ReadonlySet<number>;
  current: number;
  perLineSpeaker: boolean;
  /** The Tab stop of a line with and without a speaker control. */
  stopWith: Control;
  stopWithout: Control;
  splittable: boolean;
  actions: LineActions;
  active: number;
  time: number;
}) {
  const rows = useMemo(
    () =>
      segments.map((s, i) => {
        const speaker = who[i] ?? s.speaker;
        const showSpeaker = speaker !== undefined && speaker !== (who[i - 1] ?? segments[i - 1]?.speaker);
        return (
          <SegmentRow
            // biome-ignore lint/suspicious/noArrayIndexKey: a split replaces the whole list (a new snapshot)
            key={i}
            segment={s}
            index={i}
            text={texts[i] ?? s.text}
            speaker={speaker}
            showSpeaker={showSpeaker}
            perLineSpeaker={perLineSpeaker}
            speakers={speakers}
            speakerName={speakerName}
            editable={editable}
            canSeek={canSeek}
            plainText={plainText}
            language={language}
            active={false}
            match={matched.has(i)}
            current={i === current}
            playTime={undefined}
            stop={showSpeaker || perLineSpeaker ? stopWith : stopWithout}
            splittable={splittable}
            actions={actions}
          />
        );
      }),
    [
      segments,
      texts,
      who,
      speakers,
      speakerName,
      editable,
      canSeek,
      plainText,
      language,
      matched,
      current,
      perLineSpeaker,
      stopWith,
      stopWithout,
      splittable,
      actions,
    ],
  );
  const shown = active >= 0 && active < rows.length ? rows.slice() : rows;
  if (shown !== rows) shown[active] = cloneElement(rows[active], { active: true, playTime: time });
  return shown;
}

/**
 * The timed transcript of the job page (and of the shared page and the finished result on the
 * transcription screen): one row per segment with its start (data-start, in seconds), its speaker
 * where the voice changes, and its text: editable fields, or (plainText) its words, each an element
 * with its times (data-start, data-end) that plays from there when clicked. Clicking a row or its
 * time seeks the audio there; Enter on a time plays from there. The row playing is marked
 * (aria-current) and kept in view, unless the user is typing in the list; in it, the word playing.
 * Rows are memoised: a new position re-renders only the row playing (and the one that played before).
 *
 * Keyboard: one Tab stop per line (a roving tabindex): the kind of control last used (time, speaker or
 * text) is the line's stop; ↑/↓ on a time or speaker go to the line above/below, ←/→ to the line's
 * other controls, Home/End to the first/last line, Escape in a text back to its time. Words are not
 * Tab stops.
 */
export function SegmentList({
  segments,
  texts,
  who,
  speakers,
  time,
  canSeek,
  editable,
  language,
  onSeek,
  onPlay,
  onEdit,
  onSpeaker,
  onSplit,
  plainText = false,
}: SegmentListProps) {
  const { t } = useTranslation();
  const list = useRef<HTMLOListElement>(null);
  const starts = useMemo(() => segments.map((s) => s.start), [segments]);
  const active = canSeek ? activeSegment(starts, time) : -1;
  const shownName = useSpeakerName();
  const names = useMemo(() => new Map(speakers.map((s) => [s.id, shownName(s)])), [speakers, shownName]);
  const speakerName = useCallback(
    (id: number) => names.get(id) ?? t("transcription.speakerN", { n: id + 1 }),
    [names, t],
  );
  const [query, setQuery] = useState("");
  const [at, setAt] = useState(-1);
  const matches = useMemo(() => findMatches(texts, query), [texts, query]);
  const matched = useMemo(() => new Set(matches), [matches]);
  const current = at >= 0 && at < matches.length ? matches[at] : -1;
  const perLineSpeaker = editable && speakers.length > 1;
  const { stopOf, setStop, onLineKey } = useRovingLines({
    list,
    count: segments.length,
    has: (c, hasSpeaker) =>
      c === "time"
        ? canSeek
        : c === "speaker"
          ? hasSpeaker && editable && speakers.length > 1
          : c === "split"
            ? !!onSplit && editable && !plainText
            : !plainText,
    onEnterTime: canSeek ? (i) => (onPlay ?? onSeek)(segments[i].start) : undefined,
  });

  /** The segments of the turn starting at `i`: it and the following ones of the same speaker. */
  const turnOf = (i: number) => {
    const speaker = who[i] ?? segments[i].speaker;
    const out = [i];
    for (let j = i + 1; j < segments.length && (who[j] ?? segments[j].speaker) === speaker; j++) out.push(j);
    return out;
  };

  const actions = useLineActions({ setStop, onLineKey, onSeek, onPlay, onEdit, onSpeaker, onSplit, turnOf, texts });

  // The Tab stop of a line with and without a speaker control.
  const stopWith = stopOf(true);
  const stopWithout = stopOf(false);
  const shown = useRows({
    segments,
    texts,
    who,
    speakers,
    speakerName,
    editable,
    canSeek,
    plainText,
    language,
    matched,
    current,
    perLineSpeaker,
    stopWith,
    stopWithout,
    splittable: !!onSplit,
    actions,
    active,
    time,
  });

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
    // The rows are the list's children in order (no search through every word of a long transcript).
    box.children.item(active)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  return (
    <>
      <FindBar
        query={query}
        onQuery={(q) => {
          setQuery(q);
          setAt(-1);
        }}
        at={at}
        total={matches.length}
        onStep={step}
      />
      <ol ref={list} className="ws-segments" data-testid="ws-segments">
        {shown}
      </ol>
    </>
  );
}
