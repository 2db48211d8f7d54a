import type { JobSpeaker, TranscriptSegment } from "@kikitori/shared";
import type { KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { formatClock, isoDuration } from "./time.ts";
import type { Control } from "./useRovingLines.ts";
import { useSpeakerName } from "./useSpeakerNames.ts";

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
  marks: { active: boolean; match: boolean; current: boolean };
  focus: LineFocus;
  onSeek: (seconds: number) => void;
  onEdit: (text: string) => void;
  onTurnSpeaker: (speaker: number) => void;
  onLineSpeaker: (speaker: number) => void;
  /** Splits the line (absent: it cannot be split). */
  onSplit?: () => void;
  onCaret: (at: number) => void;
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
  | "speaker"
  | "showSpeaker"
  | "perLineSpeaker"
  | "speakers"
  | "speakerName"
  | "editable"
  | "focus"
  | "index"
  | "onTurnSpeaker"
  | "onLineSpeaker"
> & { clock: string }) {
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

/**
 * One line of the timed transcript: its time (a seek button), its speaker where the voice changes
 * (or a per-line choice), a split button, and its text (a field, or a plain paragraph).
 */
export function SegmentRow({
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
  marks,
  focus,
  onSeek,
  onEdit,
  onTurnSpeaker,
  onLineSpeaker,
  onSplit,
  onCaret,
}: SegmentRowProps) {
  const { t } = useTranslation();
  const lang = useLang();
  const clock = formatClock(segment.start, lang);
  const tab = (c: Control) => (c === focus.stop ? 0 : -1);
  const i = index;
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the time button is the keyboard way to seek; a click anywhere on the row is a shortcut
    <li
      data-index={i}
      data-start={segment.start}
      data-testid="ws-segment"
      className={`ws-segment${marks.active ? " active" : ""}${marks.match ? " match" : ""}${marks.current ? " current" : ""}`}
      data-match={marks.match ? "true" : undefined}
      aria-current={marks.active ? "true" : undefined}
      onClick={canSeek ? () => onSeek(segment.start) : undefined}
    >
      <div className="ws-segment-head">
        <button
          type="button"
          className="ws-time"
          data-testid="ws-seek"
          data-control="time"
          tabIndex={tab("time")}
          disabled={!canSeek}
          onFocus={() => focus.setStop("time")}
          onKeyDown={(e) => focus.onLineKey(e, i, "time")}
          onClick={(e) => {
            e.stopPropagation();
            onSeek(segment.start);
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
          onTurnSpeaker={onTurnSpeaker}
          onLineSpeaker={onLineSpeaker}
        />
        {onSplit && editable && !plainText ? (
          <button
            type="button"
            className="ws-split btn btn-secondary btn-small"
            data-testid="ws-split"
            data-control="split"
            tabIndex={tab("split")}
            onFocus={() => focus.setStop("split")}
            onKeyDown={(e) => focus.onLineKey(e, i, "split")}
            aria-label={t("job.splitLine", { time: clock })}
            title={t("job.splitLine", { time: clock })}
            onClick={(e) => {
              e.stopPropagation();
              onSplit();
            }}
          >
            ✂
          </button>
        ) : null}
      </div>
      {plainText ? (
        <p className="ws-segment-text ws-segment-plain" data-testid="ws-segment-text" dir="auto">
          {text}
        </p>
      ) : (
        <textarea
          className="ws-segment-text"
          data-testid="ws-segment-text"
          data-control="text"
          tabIndex={tab("text")}
          value={text}
          readOnly={!editable}
          rows={1}
          dir="auto"
          spellCheck
          aria-label={t("job.segmentText", { time: clock })}
          onFocus={() => focus.setStop("text")}
          onSelect={(e) => onCaret(e.currentTarget.selectionStart)}
          onKeyDown={(e) => focus.onLineKey(e, i, "text")}
          onChange={(e) => onEdit(e.target.value)}
        />
      )}
    </li>
  );
}
