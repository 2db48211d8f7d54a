/**
 * The text engine port: summary and title/heading generation behind one interface, so the worker
 * does not care whether a model is involved. Chosen by config (TEXT_ENGINE=offline|openai).
 */

import type { summaryInputSchema, titlesInputSchema } from "@kikitori/shared";
import type { z } from "zod";

export type SummaryInput = z.infer<typeof summaryInputSchema>;
export type TitlesInput = z.infer<typeof titlesInputSchema>;
export interface TitlesOutput {
  titles: string[];
  headings: string[];
}

export interface TextEngine {
  /** Short name stored with each run (text_runs.engine). */
  readonly name: string;
  summarize(input: SummaryInput): Promise<string>;
  titles(input: TitlesInput): Promise<TitlesOutput>;
}
