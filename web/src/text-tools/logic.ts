/** Pure parts of the summary and title screens (unit-tested). */
import {
  headingBlocks,
  REQUIRED_PHRASES_MAX,
  REQUIRED_PHRASES_MIN,
  SUMMARY_LENGTH_DEFAULT,
  SUMMARY_LENGTH_MAX,
  SUMMARY_LENGTH_MIN,
  textLines,
} from "@kikitori/shared";

/** Spec section 4: while waiting, the bar rises 1 per second up to 98; success sets 100. */
export const SUMMARY_PROGRESS_CAP = 98;
export function nextSummaryProgress(value: number): number {
  return Math.min(SUMMARY_PROGRESS_CAP, value + 1);
}

/** Progress bar tone: neutral while generating, success once done, error only when it failed. */
export type ProgressTone = "running" | "done" | "failed";
export function progressTone(status: "idle" | "generating" | "done" | "failed"): ProgressTone {
  if (status === "failed") return "failed";
  if (status === "done") return "done";
  return "running";
}

/**
 * The desired length the form suggests for a text of `textChars` characters: about a third of it
 * (rounded to tens), within the limits and never longer than the text. With no text yet, the spec's
 * default. The form follows the text with it until the user types a length of their own.
 */
export function suggestedSummaryLength(textChars: number): number {
  if (textChars <= 0) return SUMMARY_LENGTH_DEFAULT;
  const third = Math.round(textChars / 30) * 10;
  return Math.max(SUMMARY_LENGTH_MIN, Math.min(SUMMARY_LENGTH_MAX, textChars, third));
}

/** The phrase rows: adding stops at the maximum, removing keeps at least two rows. */
export function addPhraseRow(rows: readonly string[]): string[] {
  return rows.length >= REQUIRED_PHRASES_MAX ? [...rows] : [...rows, ""];
}
export function removePhraseRow(rows: readonly string[], index: number): string[] {
  if (rows.length <= REQUIRED_PHRASES_MIN) return [...rows];
  return rows.filter((_, i) => i !== index);
}

/** A number field's value as an integer, or NaN when it is not one (so the rules reject it). */
export function intOf(value: string): number {
  const t = value.trim();
  return /^-?\d+$/.test(t) ? Number(t) : Number.NaN;
}

export type OutputPart = { kind: "heading"; index: number; text: string } | { kind: "lines"; text: string };

/**
 * The text with each heading at the start of its block of ceil(lines / headings) lines (api
 * contract). Headings without a block (fewer lines than headings) follow the text, in order.
 */
export function placeHeadings(text: string, headings: readonly string[]): OutputPart[] {
  const lines = textLines(text);
  const blocks = headingBlocks(lines.length, headings.length);
  const parts: OutputPart[] = [];
  blocks.forEach((b, i) => {
    parts.push({ kind: "heading", index: i, text: headings[i] });
    parts.push({ kind: "lines", text: lines.slice(b.start, b.end).join("\n") });
  });
  for (let i = blocks.length; i < headings.length; i++) parts.push({ kind: "heading", index: i, text: headings[i] });
  if (blocks.length === 0 && text.trim()) parts.push({ kind: "lines", text });
  return parts;
}

/** The placed text as plain text (for copying): each heading on a line of its own before its block. */
export function composeArticle(text: string, headings: readonly string[]): string {
  return placeHeadings(text, headings)
    .map((p) => (p.kind === "heading" ? `\n■ ${p.text}\n` : p.text))
    .join("\n")
    .replace(/^\n+/, "")
    .replace(/\n{3,}/g, "\n\n");
}

/** The text a page was opened with ("Summarise this interview": navigation state `{ text }`), else "". */
export function textFromNavigation(state: unknown): string {
  const text = (state as { text?: unknown } | null)?.text;
  return typeof text === "string" ? text : "";
}
