import { locateQuote, quoteSpan, selectionRange, type TranscriptSegment } from "@kikitori/shared";
import { useCallback, useEffect, useState } from "react";

/** A selection in the transcript as a quote would take it: its time range and the words in it. */
export interface TranscriptSelection {
  start: number;
  end: number;
  text: string;
}

/** Where a selection lies: from a character of one line to a character of another (or the same). */
interface SelectedLines {
  first: number;
  from: number;
  last: number;
  /** null: to the end of the last line. */
  to: number | null;
}

const lineOf = (node: Node | null): HTMLElement | null => {
  const el = node instanceof Element ? node : (node?.parentElement ?? null);
  return el?.closest<HTMLElement>("li.ws-segment[data-index]") ?? null;
};

/** The character offset of a position inside a line's read-only text, or null when it is elsewhere in the line. */
function offsetInText(node: Node, offset: number): number | null {
  const el = node instanceof Element ? node : node.parentElement;
  const text = el?.closest(".ws-segment-plain");
  if (!text) return null;
  const range = document.createRange();
  range.selectNodeContents(text);
  range.setEnd(node, offset);
  return range.toString().length;
}

/**
 * The lines the page's selection covers: a selection inside one line's text field, or a selection
 * of the page across lines (dragged over their times: whole lines; over read-only texts: from the
 * characters chosen). Null when nothing is selected in the transcript.
 */
export function selectedLines(doc: Document): SelectedLines | null {
  const active = doc.activeElement;
  if (active instanceof HTMLTextAreaElement) {
    const li = lineOf(active);
    if (!li) return null;
    if (active.selectionStart === active.selectionEnd) return null;
    const i = Number(li.dataset.index);
    return { first: i, from: active.selectionStart, last: i, to: active.selectionEnd };
  }
  const sel = doc.getSelection();
  if (!sel || sel.isCollapsed || sel.rangeCount === 0) return null;
  const range = sel.getRangeAt(0);
  const a = lineOf(range.startContainer);
  const b = lineOf(range.endContainer);
  if (!a || !b) return null;
  return {
    first: Number(a.dataset.index),
    from: offsetInText(range.startContainer, range.startOffset) ?? 0,
    last: Number(b.dataset.index),
    to: offsetInText(range.endContainer, range.endOffset),
  };
}

/** The segments with the texts as edited (an edited text has no word times any more, as on the server). */
export function editedSegments(segments: readonly TranscriptSegment[], texts: readonly string[]): TranscriptSegment[] {
  return segments.map((s, i) => {
    const text = texts[i];
    return text === undefined || text === s.text ? s : { ...s, text, words: undefined };
  });
}

/** The time range and words of selected lines, as the server will cut them. Pure. */
export function selectionOf(
  lines: SelectedLines,
  segments: readonly TranscriptSegment[],
  language: string,
): TranscriptSelection | null {
  const first = segments[lines.first];
  const last = segments[lines.last];
  if (!first || !last) return null;
  const end = lines.to ?? last.text.length;
  const head =
    lines.first === lines.last
      ? selectionRange(first, first.text, lines.from, end, language)
      : selectionRange(first, first.text, lines.from, first.text.length, language);
  const tail = lines.first === lines.last ? head : selectionRange(last, last.text, 0, end, language);
  const start = head?.start ?? first.start;
  const stop = tail?.end ?? last.end;
  if (!(stop > start)) return null;
  const text = quoteSpan(segments, start, stop, language).text;
  return text ? { start, end: stop, text } : null;
}

/** The words a passage of the interview text was said with, where they are found in the transcript. */
function located(
  segments: readonly TranscriptSegment[],
  passage: string,
  language: string,
): TranscriptSelection | null {
  const range = locateQuote(segments, passage, language);
  if (!range) return null;
  const text = quoteSpan(segments, range.start, range.end, language).text;
  return text ? { ...range, text } : null;
}

/**
 * Follows the selection in the transcript as a quote range, or a selection in the interview text (the
 * textarea `interviewId`) as the transcript's words it was made from (`missed` when they are not
 * found). It stays while the focus moves on (to the Save quote button, by Tab or a key); a caret
 * without a selection in a line's text clears it.
 */
export function useTranscriptSelection(
  segments: readonly TranscriptSegment[],
  texts: readonly string[],
  language: string,
  interviewId?: string,
): { selection: TranscriptSelection | null; missed: boolean; clear: () => void } {
  const [selection, setSelection] = useState<TranscriptSelection | null>(null);
  const [missed, setMissed] = useState(false);
  useEffect(() => {
    const edited = editedSegments(segments, texts);
    const update = () => {
      const active = document.activeElement;
      if (interviewId && active instanceof HTMLTextAreaElement && active.id === interviewId) {
        if (active.selectionStart === active.selectionEnd) return setMissed(false);
        const found = located(edited, active.value.slice(active.selectionStart, active.selectionEnd), language);
        setMissed(!found);
        return setSelection(found);
      }
      const lines = selectedLines(document);
      if (lines) {
        setMissed(false);
        setSelection(selectionOf(lines, edited, language));
        return;
      }
      if (active instanceof HTMLTextAreaElement && lineOf(active)) setSelection(null);
    };
    document.addEventListener("selectionchange", update);
    document.addEventListener("select", update, true);
    document.addEventListener("mouseup", update);
    document.addEventListener("keyup", update);
    return () => {
      document.removeEventListener("selectionchange", update);
      document.removeEventListener("select", update, true);
      document.removeEventListener("mouseup", update);
      document.removeEventListener("keyup", update);
    };
  }, [segments, texts, language, interviewId]);
  const clear = useCallback(() => setSelection(null), []);
  return { selection, missed, clear };
}
