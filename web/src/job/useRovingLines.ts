import { type KeyboardEvent, type RefObject, useState } from "react";

/** The controls of one transcript line, in reading order. */
export type Control = "time" | "speaker" | "text" | "split";
const CONTROLS: readonly Control[] = ["time", "speaker", "text", "split"];

/** The controls a line has, in order (a disabled time is not focusable). */
function controlsOf(li: HTMLElement): HTMLElement[] {
  return CONTROLS.map((c) => li.querySelector<HTMLElement>(`[data-control="${c}"]`)).filter(
    (el): el is HTMLElement => !!el && !(el as HTMLButtonElement).disabled,
  );
}

/**
 * The transcript's roving tabindex: one Tab stop per line, of the kind of control last used; the
 * arrow keys, Home and End move between lines and along a line, Escape in a text goes back to its
 * time, Enter on a time plays from there.
 */
export function useRovingLines({
  list,
  count,
  has,
  onEnterTime,
}: {
  list: RefObject<HTMLOListElement | null>;
  /** How many lines there are. */
  count: number;
  /** Whether a line has a focusable control of this kind (hasSpeaker: the line shows a speaker). */
  has: (control: Control, hasSpeaker: boolean) => boolean;
  /** Enter on line i's time (absent: Enter does nothing there). */
  onEnterTime?: (i: number) => void;
}) {
  const [stop, setStop] = useState<Control>("time");

  /** The line's Tab stop: its control of the kind in use, else its first focusable one. */
  const stopOf = (hasSpeaker: boolean): Control => {
    if (has(stop, hasSpeaker)) return stop;
    return CONTROLS.find((c) => has(c, hasSpeaker)) ?? "time";
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
    if (e.key === "ArrowDown" && i + 1 < count) move = () => focusLine(i + 1, control);
    else if (e.key === "ArrowUp" && i > 0) move = () => focusLine(i - 1, control);
    else if (e.key === "Home") move = () => focusLine(0, control);
    else if (e.key === "End") move = () => focusLine(count - 1, control);
    else if (e.key === (rtl ? "ArrowLeft" : "ArrowRight") && at + 1 < own.length) move = () => own[at + 1].focus();
    else if (e.key === (rtl ? "ArrowRight" : "ArrowLeft") && at > 0) move = () => own[at - 1].focus();
    else if (e.key === "Enter" && control === "time" && onEnterTime) move = () => onEnterTime(i);
    if (!move) return;
    // The player's own ← → keys must not act as well.
    e.preventDefault();
    e.stopPropagation();
    move();
  };

  return { stopOf, setStop, onLineKey };
}
