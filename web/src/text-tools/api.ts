import {
  type SummarizeBody,
  type SummaryResult,
  summarizeResponseSchema,
  type TitlesBody,
  type TitlesResult,
  titlesResponseSchema,
} from "@kikitori/shared";
import { apiFetchParsed, bySchema } from "../api/client.ts";

/** Generation waits for a worker (a model may take a minute or two): longer than the default time-out. */
const GENERATION_TIMEOUT_MS = 150_000;

export function summarize(body: SummarizeBody, signal?: AbortSignal): Promise<SummaryResult> {
  return apiFetchParsed("/api/summary/summarize", bySchema(summarizeResponseSchema), "Unexpected summary answer", {
    method: "POST",
    body,
    signal,
    timeoutMs: GENERATION_TIMEOUT_MS,
  });
}

export function generateTitles(body: TitlesBody, signal?: AbortSignal): Promise<TitlesResult> {
  return apiFetchParsed(
    "/api/generate-titles-and-headings",
    bySchema(titlesResponseSchema),
    "Unexpected titles answer",
    { method: "POST", body, signal, timeoutMs: GENERATION_TIMEOUT_MS },
  );
}
