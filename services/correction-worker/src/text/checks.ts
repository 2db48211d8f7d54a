/**
 * The checks every engine's result must pass (issue: "all phrases present, length within ±10%,
 * counts exact"). The openai engine names the failures back to the model; tests use them on the
 * offline engine's output.
 */
import { charCount, nonEmptyPhrases } from "@kikitori/shared";

/** Allowed deviation of the summary's length from the desired length. */
export const LENGTH_TOLERANCE = 0.1;

export function lengthBounds(desiredLength: number): { min: number; max: number } {
  return {
    min: Math.ceil(desiredLength * (1 - LENGTH_TOLERANCE)),
    max: Math.floor(desiredLength * (1 + LENGTH_TOLERANCE)),
  };
}

export type SummaryFailure =
  | { kind: "missing_phrase"; phrase: string }
  | { kind: "too_short" | "too_long"; length: number; min: number; max: number; desired: number };

export function checkSummary(
  summary: string,
  input: { requiredPhrases: readonly string[]; desiredLength: number },
): SummaryFailure[] {
  const failures: SummaryFailure[] = [];
  for (const phrase of nonEmptyPhrases(input.requiredPhrases)) {
    if (!summary.includes(phrase)) failures.push({ kind: "missing_phrase", phrase });
  }
  const length = charCount(summary);
  const { min, max } = lengthBounds(input.desiredLength);
  if (length < min) failures.push({ kind: "too_short", length, min, max, desired: input.desiredLength });
  if (length > max) failures.push({ kind: "too_long", length, min, max, desired: input.desiredLength });
  return failures;
}

export type TitlesFailure =
  | { kind: "title_count" | "heading_count"; expected: number; actual: number }
  | { kind: "empty_title" | "empty_heading"; index: number }
  | { kind: "duplicate_title"; title: string };

export function checkTitles(
  result: { titles: readonly string[]; headings: readonly string[] },
  input: { numTitles: number; numHeadings: number },
): TitlesFailure[] {
  const failures: TitlesFailure[] = [];
  if (result.titles.length !== input.numTitles) {
    failures.push({ kind: "title_count", expected: input.numTitles, actual: result.titles.length });
  }
  if (result.headings.length !== input.numHeadings) {
    failures.push({ kind: "heading_count", expected: input.numHeadings, actual: result.headings.length });
  }
  const seen = new Set<string>();
  result.titles.forEach((t, index) => {
    const key = t.trim().normalize("NFKC").toLocaleLowerCase();
    if (!key) failures.push({ kind: "empty_title", index });
    else if (seen.has(key)) failures.push({ kind: "duplicate_title", title: t });
    seen.add(key);
  });
  result.headings.forEach((h, index) => {
    if (!h.trim()) failures.push({ kind: "empty_heading", index });
  });
  return failures;
}

/** One English line per failure, to send back to a model. */
export function describeFailure(f: SummaryFailure | TitlesFailure): string {
  switch (f.kind) {
    case "missing_phrase":
      return `The summary does not contain the required phrase "${f.phrase}" verbatim.`;
    case "too_short":
      return `The summary has ${f.length} characters; it must have between ${f.min} and ${f.max} (target ${f.desired}). Make it longer.`;
    case "too_long":
      return `The summary has ${f.length} characters; it must have between ${f.min} and ${f.max} (target ${f.desired}). Make it shorter.`;
    case "title_count":
      return `There are ${f.actual} titles; exactly ${f.expected} are required.`;
    case "heading_count":
      return `There are ${f.actual} headings; exactly ${f.expected} are required.`;
    case "empty_title":
      return `Title ${f.index + 1} is empty.`;
    case "empty_heading":
      return `Heading ${f.index + 1} is empty.`;
    case "duplicate_title":
      return `The title "${f.title}" appears more than once; all titles must be different.`;
  }
}
