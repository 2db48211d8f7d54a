import { z } from "zod";
import type { ErrorCode } from "./errors.ts";

/**
 * Summary length bounds and defaults (checked by checkSummaryRequest below). The minimum is 100 (the
 * first rule's 1,000 made a short interview impossible to summarise:
 * docs/decisions/0018-first-use-and-account-page.md); "no longer than the text" stays. The form's default
 * follows the text (about a third of it, web/src/text-tools/logic.ts); 3002 is the default with no text yet
 * (docs/decisions/0027-finished-summaries-steered-titles-billing-trust.md).
 */
export const SUMMARY_LENGTH_MIN = 100;
export const SUMMARY_LENGTH_MAX = 10_000;
export const SUMMARY_LENGTH_DEFAULT = 3002;
export const REQUIRED_PHRASES_MIN = 2;
export const REQUIRED_PHRASES_MAX = 20;
export const REQUIRED_PHRASE_MAX_CHARS = 200;
/** Longest accepted input text, in characters. */
export const TEXT_INPUT_MAX = 200_000;
export const CUSTOM_PROMPT_MAX = 1000;
export const TITLE_COUNT_MAX = 20;
export const HEADING_COUNT_MAX = 50;
export const TITLE_DEFAULTS = { numTitles: 3, numHeadings: 3 } as const;

/**
 * The wire shapes of POST /api/summary/summarize and POST /api/generate-titles-and-headings.
 * Field-level rules only; the rules that relate fields (desired length vs text length, non-empty
 * phrases) are checked by the gateway with their own error codes.
 */
export const summarizeBodySchema = z.object({
  uid: z.string().max(64).optional(),
  // Lengths and counts are checked by checkSummaryRequest, so each rule answers with its own code.
  text: z.string(),
  requiredPhrases: z.array(z.string()),
  desiredLength: z.number().int(),
  language: z.string().max(8).optional(),
});
export type SummarizeBody = z.infer<typeof summarizeBodySchema>;
export const summarizeResponseSchema = z.object({
  summary: z.string(),
  /** Required phrases the source text does not contain (verbatim): the summary had to add them. */
  missingPhrases: z.array(z.string()).optional(),
});

export const titlesBodySchema = z.object({
  uid: z.string().max(64).optional(),
  originalText: z.string(),
  numHeadingsPerArticle: z.number().int(),
  numTitles: z.number().int(),
  customPrompt: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  language: z.string().max(8).optional(),
});
export type TitlesBody = z.infer<typeof titlesBodySchema>;
export const titlesResponseSchema = z.object({ titles: z.array(z.string()), headings: z.array(z.string()) });

export const summaryInputSchema = z.object({
  text: z.string(),
  requiredPhrases: z.array(z.string()),
  desiredLength: z.number().int(),
  language: z.string().optional(),
});
export const titlesInputSchema = z.object({
  text: z.string(),
  numHeadings: z.number().int(),
  numTitles: z.number().int(),
  customPrompt: z.string(),
  language: z.string().optional(),
});

/** Length of a text in characters (Unicode code points), the unit of every length rule and count. */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The required phrases that count: trimmed, non-empty, each once (first occurrence kept). */
export function nonEmptyPhrases(phrases: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of phrases) {
    const t = p.trim();
    if (t && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

/** The required phrases (non-empty, each once) that `text` does not contain verbatim, in their order. */
export function phrasesMissingFrom(text: string, phrases: readonly string[]): string[] {
  return nonEmptyPhrases(phrases).filter((p) => !text.includes(p));
}

/** A broken rule of the summary or title/heading call, with the API error code that names it. */
export interface TextRuleViolation {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Every rule of the summary call, in the order a user would fix them (services/shared/test/text-rules.unit.test.ts).
 * Shared by the gateway (400 with the code) and the web app (the same message before sending). Null when valid.
 */
export function checkSummaryRequest(b: {
  text: string;
  requiredPhrases: readonly string[];
  desiredLength: number;
}): TextRuleViolation | null {
  if (!b.text.trim()) return { code: "TEXT_BLANK", message: "The original text is empty." };
  const textChars = charCount(b.text);
  if (textChars > TEXT_INPUT_MAX) {
    return {
      code: "TEXT_TOO_LONG",
      message: `The text may have at most ${TEXT_INPUT_MAX} characters.`,
      details: { max: TEXT_INPUT_MAX, actual: textChars },
    };
  }
  if (
    !Number.isInteger(b.desiredLength) ||
    b.desiredLength < SUMMARY_LENGTH_MIN ||
    b.desiredLength > SUMMARY_LENGTH_MAX
  ) {
    return {
      code: "DESIRED_LENGTH_OUT_OF_RANGE",
      message: `The desired length must be between ${SUMMARY_LENGTH_MIN} and ${SUMMARY_LENGTH_MAX} characters.`,
      details: { min: SUMMARY_LENGTH_MIN, max: SUMMARY_LENGTH_MAX },
    };
  }
  if (b.desiredLength > textChars) {
    return {
      code: "DESIRED_LENGTH_TOO_LONG",
      message: "The desired length must be equal to or shorter than the original text.",
      details: { desiredLength: b.desiredLength, textLength: textChars },
    };
  }
  if (b.requiredPhrases.length > REQUIRED_PHRASES_MAX) {
    return {
      code: "REQUIRED_PHRASES_TOO_MANY",
      message: `At most ${REQUIRED_PHRASES_MAX} required phrases are allowed.`,
      details: { max: REQUIRED_PHRASES_MAX },
    };
  }
  const phrases = nonEmptyPhrases(b.requiredPhrases);
  if (phrases.length < REQUIRED_PHRASES_MIN) {
    return {
      code: "REQUIRED_PHRASES_MISSING",
      message: `Please enter at least ${REQUIRED_PHRASES_MIN} required phrases.`,
      details: { min: REQUIRED_PHRASES_MIN },
    };
  }
  const long = phrases.find((p) => charCount(p) > REQUIRED_PHRASE_MAX_CHARS);
  if (long !== undefined) {
    return {
      code: "REQUIRED_PHRASE_TOO_LONG",
      message: `A required phrase may have at most ${REQUIRED_PHRASE_MAX_CHARS} characters.`,
      details: { max: REQUIRED_PHRASE_MAX_CHARS },
    };
  }
  // Each phrase must appear in the summary: together (one separator each) they must fit the length.
  const phraseChars = phrases.reduce((n, p) => n + charCount(p) + 1, 0);
  if (phraseChars > b.desiredLength) {
    return {
      code: "REQUIRED_PHRASES_EXCEED_LENGTH",
      message: "The required phrases together are longer than the desired length.",
      details: { phraseChars, desiredLength: b.desiredLength },
    };
  }
  return null;
}

/** Every rule of the title/heading call (services/shared/test/text-rules.unit.test.ts). Null when valid. */
export function checkTitlesRequest(b: {
  originalText: string;
  numHeadingsPerArticle: number;
  numTitles: number;
  customPrompt?: string | null;
}): TextRuleViolation | null {
  if (!b.originalText.trim()) return { code: "TEXT_BLANK", message: "The original text is empty." };
  const textChars = charCount(b.originalText);
  if (textChars > TEXT_INPUT_MAX) {
    return {
      code: "TEXT_TOO_LONG",
      message: `The text may have at most ${TEXT_INPUT_MAX} characters.`,
      details: { max: TEXT_INPUT_MAX, actual: textChars },
    };
  }
  for (const [field, value, max] of [
    ["numHeadingsPerArticle", b.numHeadingsPerArticle, HEADING_COUNT_MAX],
    ["numTitles", b.numTitles, TITLE_COUNT_MAX],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      return { code: "COUNT_TOO_LOW", message: `${field} must be at least 1.`, details: { field, min: 1 } };
    }
    if (value > max) {
      return { code: "COUNT_TOO_HIGH", message: `${field} may be at most ${max}.`, details: { field, max } };
    }
  }
  const prompt = b.customPrompt ?? "";
  if (charCount(prompt) > CUSTOM_PROMPT_MAX) {
    return {
      code: "CUSTOM_PROMPT_TOO_LONG",
      message: `The custom request may have at most ${CUSTOM_PROMPT_MAX} characters.`,
      details: { max: CUSTOM_PROMPT_MAX },
    };
  }
  return null;
}

/** The text's lines as the heading placement counts them (trailing blank lines do not count). */
export function textLines(text: string): string[] {
  const trimmed = text.replace(/\s+$/u, "");
  return trimmed ? trimmed.split(/\r\n|\n|\r/) : [];
}

/**
 * Where headings go: a heading at the start of each block of ceil(lines / headings) lines;
 * block i covers lines [start, end). There are at most `numHeadings` blocks; with fewer lines than
 * headings, the later headings have no block (the web app lists them after the text).
 */
export function headingBlocks(lineCount: number, numHeadings: number): Array<{ start: number; end: number }> {
  if (lineCount <= 0 || numHeadings <= 0) return [];
  const size = Math.ceil(lineCount / numHeadings);
  const blocks: Array<{ start: number; end: number }> = [];
  for (let start = 0; start < lineCount && blocks.length < numHeadings; start += size) {
    blocks.push({ start, end: Math.min(lineCount, start + size) });
  }
  return blocks;
}

/** A finished run's answer, as stored in text_runs.result and returned by the job. */
export type SummaryResult = z.infer<typeof summarizeResponseSchema>;
export type TitlesResult = z.infer<typeof titlesResponseSchema>;
