import { type JobSpeaker, type TranscriptSegment, type TranscriptWord, withWords } from "@kikitori/shared";
import { type KeyboardEvent, type MouseEvent, memo, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { formatClock, isoDuration } from "./time.ts";
import type { Control } from "./useRovingLines.ts";
import { useSpeakerName } from "./useSpeakerNames.ts";
import { type TextRun, wordAt, wordRuns } from "./words.ts";
import "./words.css";

/** How a line takes part in the roving tabindex. */
export type LineFocus = {
  /** The line's Tab stop. */
  stop: Control;
  setStop: (control: Control) => void;
  onLineKey: (e: KeyboardEvent<HTMLElement>, i: number, control: Control) => void;
};

/** A choice of speaker on a line: of its whole turn (at a change of voice) or of the line alone. */
function SpeakerSelect({
  kind,
  speaker,
  speakers,
  label,
  focus,
  index,
  onChange,
}: {
  kind: "turn" | "line";
  speaker: number;
  speakers: readonly JobSpeaker[];
  label: string;
  focus: LineFocus;
  index: number;
  onChange: (speaker: number) => void;
}) {
  const shownName = useSpeakerName();
  return (
    <select
      className={kind === "turn" ? "ws-speaker ws-speaker-select" : "ws-speaker ws-speaker-line"}
      data-testid={kind === "turn" ? "ws-speaker" : "ws-line-speaker"}
      data-speaker={speaker}
      data-control="speaker"
      tabIndex={focus.stop === "speaker" ? 0 : -1}
      onFocus={() => focus.setStop("speaker")}
      onKeyDown={(e) => {
        // ↑/↓ keep choosing a speaker, as in any menu; ←/→ move along the line.
        if (e.key === "ArrowUp" || e.key === "ArrowDown") return;
        focus.onLineKey(e, index, "speaker");
      }}
      value={speaker}
      aria-label={label}
      onClick={(e) => e.stopPropagation()}
      onChange={(e) => onChange(Number(e.target.value))}
    >
      {speakers.map((sp) => (
        <option key={sp.id} value={sp.id}>
          {shownName(sp)}
        </option>
      ))}
    </select>
  );
}

/** What a line does, the same object for every line and every render (rows are memoised). */
export type LineActions = {
  setStop: (control: Control) => void;
  onLineKey: (e: KeyboardEvent<HTMLElement>, i: number, control: Control) => void;
  /** Seeks to a time. */
  seek: (seconds: number) => void;
  /** Seeks to a time and plays. */
  play: (seconds: number) => void;
  edit: (i: number, text: string) => void;
  turnSpeaker: (i: number, speaker: number) => void;
  lineSpeaker: (i: number, speaker: number) => void;
  split: (i: number) => void;
  caret: (i: number, at: number) => void;
};

type SegmentRowProps = {
  segment: TranscriptSegment;
  index: number;
  text: string;
  speaker: number | undefined;
  /** The voice changes here: the turn's speaker is shown. */
  showSpeaker: boolean;
  perLineSpeaker: boolean;
  speakers: readonly JobSpeaker[];
  speakerName: (id: number) => string;
  editable: boolean;
  canSeek: boolean;
  plainText: boolean;
  /** The language of the text (where the words are told apart when the segment has no word times). */
  language: string;
  /** The line is playing, is a match of the search, is the match shown. */
  active: boolean;
  match: boolean;
  current: boolean;
  /** The player's position while this line plays (undefined otherwise): the word there is marked. */
  playTime: number | undefined;
  /** The line's Tab stop. */
  stop: Control;
  /** The line can be split. */
  splittable: boolean;
  actions: LineActions;
};

/**
 * The speaker shown on a line: where the voice changes, the turn's speaker (a choice when it can be
 * edited); elsewhere, when lines can be given to another speaker, the line's own choice.
 */
function LineSpeaker({
  speaker,
  showSpeaker,
  perLineSpeaker,
  speakers,
  speakerName,
  editable,
  clock,
  focus,
  index,
  onTurnSpeaker,
  onLineSpeaker,
}: Pick<
  SegmentRowProps,
  "speaker" | "showSpeaker" | "perLineSpeaker" | "speakers" | "speakerName" | "editable" | "index"
> & {
  clock: string;
  focus: LineFocus;
  onTurnSpeaker: (speaker: number) => void;
  onLineSpeaker: (speaker: number) => void;
}) {
  const { t } = useTranslation();
  const i = index;
  return (
    <>
      {showSpeaker && speaker !== undefined ? (
        editable && speakers.length > 1 ? (
          <SpeakerSelect
            kind="turn"
            speaker={speaker}
            speakers={speakers}
            label={t("job.turnSpeaker", { time: clock })}
            focus={focus}
            index={i}
            onChange={onTurnSpeaker}
          />
        ) : (
          <span className="ws-speaker" data-testid="ws-speaker" data-speaker={speaker}>
            {speakerName(speaker)}
          </span>
        )
      ) : perLineSpeaker && speaker !== undefined ? (
        <SpeakerSelect
          kind="line"
          speaker={speaker}
          speakers={speakers}
          label={t("job.lineSpeaker", { time: clock })}
          focus={focus}
          index={i}
          onChange={onLineSpeaker}
        />
      ) : null}
    </>
  );
}

/** A line's words as they are written, each word its own element with its times; `marked` is the one playing. */
const LineWords = memo(function LineWords({
  runs,
  words,
  marked,
  estimated,
}: {
  runs: readonly TextRun[];
  words: readonly TranscriptWord[];
  marked: number;
  /** The tooltip of a word whose time is estimated. */
  estimated: string;
}) {
  return (
    <>
      {runs.map((run, k) => {
        if (run.word === null) return run.text;
        const w = words[run.word];
        const on = run.word === marked;
        return (
          <span
            // biome-ignore lint/suspicious/noArrayIndexKey: the runs of a text are fixed for that text
            key={k}
            className={`ws-word${on ? " active" : ""}${w.approximate ? " approx" : ""}`}
            data-testid="ws-word"
            data-start={w.start}
            data-end={w.end}
            data-approximate={w.approximate ? "true" : undefined}
            title={w.approximate ? estimated : undefined}
            aria-current={on ? "true" : undefined}
          >
            {run.text}
          </span>
        );
      })}
    </>
  );
});

/**
 * The words of a line as shown: the saved segment's (its own times where they still match its text,
 * else estimated ones); none while the line's text differs from the saved one (an edit not saved yet).
 */
function useLineWords(segment: TranscriptSegment, text: string, language: string, show: boolean) {
  return useMemo(() => {
    if (!show || text !== segment.text) return null;
    try {
      const words = withWords(segment, language).words ?? [];
      return { words, runs: wordRuns(text, words), estimated: words.some((w) => w.approximate) };
    } catch {
      // A language tag the browser's word segmenter refuses: the text stays one piece.
      return null;
    }
  }, [segment, text, language, show]);
}

/** A line's text: a field, or (plainText) a paragraph of its words with the one playing marked. */
function LineText({
  segment,
  index,
  text,
  editable,
  plainText,
  language,
  playTime,
  tabIndex,
  label,
  actions,
}: Pick<
  SegmentRowProps,
  "segment" | "index" | "text" | "editable" | "plainText" | "language" | "playTime" | "actions"
> & { tabIndex: number; label: string }) {
  const { t } = useTranslation();
  const lineWords = useLineWords(segment, text, language, plainText);
  const marked = lineWords && playTime !== undefined ? wordAt(lineWords.words, playTime, segment.end) : -1;
  const i = index;
  return plainText ? (
    <p className="ws-segment-text ws-segment-plain" data-testid="ws-segment-text" dir="auto">
      {lineWords ? (
        <LineWords
          runs={lineWords.runs}
          words={lineWords.words}
          marked={marked}
          estimated={lineWords.estimated ? t("job.wordEstimated") : ""}
        />
      ) : (
        text
      )}
    </p>
  ) : (
    <textarea
      className="ws-segment-text"
      data-testid="ws-segment-text"
      data-control="text"
      tabIndex={tabIndex}
      value={text}
      readOnly={!editable}
      rows={1}
      dir="auto"
      spellCheck
      aria-label={label}
      onFocus={() => actions.setStop("text")}
      onSelect={(e) => actions.caret(i, e.currentTarget.selectionStart)}
      onKeyDown={(e) => actions.onLineKey(e, i, "text")}
      onChange={(e) => actions.edit(i, e.target.value)}
    />
  );
}

/**
 * One line of the timed transcript: its time (a seek button), its speaker where the voice changes
 * (or a per-line choice), a split button, and its text (a field, or a paragraph of words: a click on
 * a word plays from there, the word playing is marked). Memoised: the player's position reaches only
 * the line playing.
 */
export const SegmentRow = memo(function SegmentRow({
  segment,
  index,
  text,
  speaker,
  showSpeaker,
  perLineSpeaker,
  speakers,
  speakerName,
  editable,
  canSeek,
  plainText,
  language,
  active,
  match,
  current,
  playTime,
  stop,
  splittable,
  actions,
}: SegmentRowProps) {
  const { t } = useTranslation();
  const lang = useLang();
  const clock = formatClock(segment.start, lang);
  const focus: LineFocus = { stop, setStop: actions.setStop, onLineKey: actions.onLineKey };
  const tab = (c: Control) => (c === stop ? 0 : -1);
  const i = index;
  /** A click on a word plays from it; elsewhere on the row it seeks to the line's start. */
  const onRowClick = (e: MouseEvent<HTMLLIElement>) => {
    const word = (e.target as Element).closest<HTMLElement>("[data-testid='ws-word']");
    if (word && e.currentTarget.contains(word)) actions.play(Number(word.dataset.start));
    else actions.seek(segment.start);
  };
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the time button is the keyboard way to seek; a click anywhere on the row (or on a word) is a shortcut
    <li
      data-index={i}
      data-start={segment.start}
      data-testid="ws-segment"
      className={`ws-segment${active ? " active" : ""}${match ? " match" : ""}${current ? " current" : ""}`}
      data-match={match ? "true" : undefined}
      aria-current={active ? "true" : undefined}
      onClick={canSeek ? onRowClick : undefined}
    >
      <div className="ws-segment-head">
        <button
          type="button"
          className="ws-time"
          data-testid="ws-seek"
          data-control="time"
          tabIndex={tab("time")}
          disabled={!canSeek}
          onFocus={() => actions.setStop("time")}
          onKeyDown={(e) => actions.onLineKey(e, i, "time")}
          onClick={(e) => {
            e.stopPropagation();
            actions.seek(segment.start);
          }}
          aria-label={t("job.seekTo", { time: clock })}
        >
          <time dateTime={isoDuration(segment.start)}>{clock}</time>
        </button>
        <LineSpeaker
          speaker={speaker}
          showSpeaker={showSpeaker}
          perLineSpeaker={perLineSpeaker}
          speakers={speakers}
          speakerName={speakerName}
          editable={editable}
          clock={clock}
          focus={focus}
          index={i}
          onTurnSpeaker={(sp) => actions.turnSpeaker(i, sp)}
          onLineSpeaker={(sp) => actions.lineSpeaker(i, sp)}
        />
        {splittable && editable && !plainText ? (
          <button
            type="button"
            className="ws-split btn btn-secondary btn-small"
            data-testid="ws-split"
            data-control="split"
            tabIndex={tab("split")}
            onFocus={() => actions.setStop("split")}
            onKeyDown={(e) => actions.onLineKey(e, i, "split")}
            aria-label={t("job.splitLine", { time: clock })}
            title={t("job.splitLine", { time: clock })}
            onClick={(e) => {
              e.stopPropagation();
              actions.split(i);
            }}
          >
            ✂
          </button>
        ) : null}
      </div>
      <LineText
        segment={segment}
        index={i}
        text={text}
        editable={editable}
        plainText={plainText}
        language={language}
        playTime={playTime}
        tabIndex={tab("text")}
        label={t("job.segmentText", { time: clock })}
        actions={actions}
      />
    </li>
  );
});
