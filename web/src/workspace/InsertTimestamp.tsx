import { useEffect, useLayoutEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { insertTimestamp, isTimestampChord } from "./timestamp.ts";

/**
 * "Insert timestamp": puts `[mm:ss]` of the playing time into the interview text at its caret (the
 * button, or Ctrl+; while typing in it). The text field keeps its caret while the button is pressed.
 */
export function InsertTimestamp({
  targetId,
  value,
  currentTime,
  onChange,
  disabled = false,
}: {
  /** The id of the interview text's textarea. */
  targetId: string;
  value: string;
  currentTime: () => number;
  onChange: (text: string) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const caret = useRef<number | null>(null);

  const insert = () => {
    const field = document.getElementById(targetId);
    if (!(field instanceof HTMLTextAreaElement) || field.readOnly) return;
    const next = insertTimestamp(value, field.selectionStart, field.selectionEnd, currentTime());
    caret.current = next.caret;
    onChange(next.text);
  };

  // The caret goes after the timestamp once the field shows the new text.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the text changed
  useLayoutEffect(() => {
    const at = caret.current;
    const field = document.getElementById(targetId);
    if (at === null || !(field instanceof HTMLTextAreaElement)) return;
    caret.current = null;
    field.focus();
    field.setSelectionRange(at, at);
  }, [value, targetId]);

  const insertRef = useRef(insert);
  insertRef.current = insert;
  useEffect(() => {
    if (disabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (!isTimestampChord(e) || (e.target as HTMLElement | null)?.id !== targetId) return;
      e.preventDefault();
      insertRef.current();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [disabled, targetId]);

  return (
    <button
      type="button"
      className="btn btn-secondary btn-small"
      data-testid="ws-insert-time"
      disabled={disabled}
      aria-keyshortcuts="Control+;"
      // The interview text keeps the focus and its caret.
      onMouseDown={(e) => e.preventDefault()}
      onClick={insert}
    >
      {t("job.insertTimestamp")}
    </button>
  );
}
