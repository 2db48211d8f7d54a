import {
  type SummarizeBody,
  type SummaryResult,
  summarizeResponseSchema,
  type TitlesBody,
  type TitlesResult,
  titlesResponseSchema,
} from "@kikitori/shared";
import { apiFetch } from "../api/client.ts";
import { ApiError } from "../api/errors.ts";

/** Generation waits for a worker (a model may take a minute or two): longer than the default time-out. */
const GENERATION_TIMEOUT_MS = 150_000;

export async function summarize(body: SummarizeBody, signal?: AbortSignal): Promise<SummaryResult> {
  const raw = await apiFetch<unknown>("/api/summary/summarize", {
    method: "POST",
    body,
    signal,
    timeoutMs: GENERATION_TIMEOUT_MS,
  });
  const parsed = summarizeResponseSchema.safeParse(raw);
  if (!parsed.success) throw new ApiError("BAD_RESPONSE", 200, "Unexpected summary answer");
  return parsed.data;
}

export async function generateTitles(body: TitlesBody, signal?: AbortSignal): Promise<TitlesResult> {
  const raw = await apiFetch<unknown>("/api/generate-titles-and-headings", {
    method: "POST",
    body,
    signal,
    timeoutMs: GENERATION_TIMEOUT_MS,
  });
  const parsed = titlesResponseSchema.safeParse(raw);
  if (!parsed.success) throw new ApiError("BAD_RESPONSE", 200, "Unexpected titles answer");
  return parsed.data;
}
