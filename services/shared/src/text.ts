import { z } from "zod";

/** Spec section 5 and 9: summary length bounds and defaults. */
export const SUMMARY_LENGTH_MIN = 1000;
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
  text: z.string().max(TEXT_INPUT_MAX),
  requiredPhrases: z.array(z.string().max(REQUIRED_PHRASE_MAX_CHARS)).max(REQUIRED_PHRASES_MAX),
  desiredLength: z.number().int(),
  language: z.string().max(8).optional(),
});
export type SummarizeBody = z.infer<typeof summarizeBodySchema>;
export const summarizeResponseSchema = z.object({ summary: z.string() });

export const titlesBodySchema = z.object({
  uid: z.string().max(64).optional(),
  originalText: z.string().max(TEXT_INPUT_MAX),
  numHeadingsPerArticle: z.number().int(),
  numTitles: z.number().int(),
  customPrompt: z.string().optional().default(""),
  language: z.string().max(8).optional(),
});
export type TitlesBody = z.infer<typeof titlesBodySchema>;
export const titlesResponseSchema = z.object({ titles: z.array(z.string()), headings: z.array(z.string()) });

/** Payload of a QUEUES.text job: the run id only; the input text travels through the object store. */
export const textJobSchema = z.object({
  runId: z.string().uuid(),
  userId: z.string().uuid(),
  kind: z.enum(["summary", "titles"]),
  inputKey: z.string().min(1),
  correlationId: z.string().optional(),
});
export type TextJob = z.infer<typeof textJobSchema>;

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
