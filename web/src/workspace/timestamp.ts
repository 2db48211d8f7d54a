/** "Insert timestamp" in the interview text: the key and the insertion. Pure. */
import { clock } from "@kikitori/shared";

/**
 * Ctrl+; puts the playing time into the interview text at the caret (as Ctrl+; puts today's date
 * into a spreadsheet cell); it means nothing to browsers or text fields.
 */
export function isTimestampChord(e: Pick<KeyboardEvent, "ctrlKey" | "altKey" | "metaKey" | "key" | "code">): boolean {
  return e.ctrlKey && !e.altKey && !e.metaKey && (e.key === ";" || e.code === "Semicolon");
}

/**
 * `[mm:ss]` ([hh:mm:ss] from an hour on) of `seconds` put into `text` in place of the selection
 * from–to, with a space before it (unless at a line's start or after a space) and one after it
 * (unless one follows). Returns the new text and the caret after the timestamp and its space.
 */
export function insertTimestamp(
  text: string,
  from: number,
  to: number,
  seconds: number,
): { text: string; caret: number } {
  const before = text.slice(0, from);
  const after = text.slice(to);
  const lead = before === "" || /\s$/u.test(before) ? "" : " ";
  const trail = /^\s/u.test(after) ? "" : " ";
  const stamp = `${lead}[${clock(seconds)}]${trail}`;
  return { text: before + stamp + after, caret: before.length + stamp.length + (trail ? 0 : 1) };
}
