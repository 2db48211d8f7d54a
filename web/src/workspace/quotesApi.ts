/** The quote calls of the job page: list, save, change (note, tags, accept the current words), delete. */
import {
  type CreateQuoteInput,
  type PatchQuoteInput,
  type Quote,
  quoteListSchema,
  quoteSchema,
} from "@kikitori/shared";
import { apiFetch, apiFetchParsed, bySchema } from "../api/client.ts";

const quotes = (jobId: string) => `/api/transcriptions/${encodeURIComponent(jobId)}/quotes`;
const QUOTE = bySchema(quoteSchema);

export async function listQuotes(jobId: string, signal?: AbortSignal): Promise<Quote[]> {
  return (await apiFetchParsed(quotes(jobId), bySchema(quoteListSchema), "Unexpected quotes", { signal })).quotes;
}

export async function createQuote(jobId: string, body: CreateQuoteInput): Promise<Quote> {
  return apiFetchParsed(quotes(jobId), QUOTE, "Unexpected quote", { method: "POST", body, okStatus: 201 });
}

export async function patchQuote(jobId: string, quoteId: string, body: PatchQuoteInput): Promise<Quote> {
  return apiFetchParsed(`${quotes(jobId)}/${encodeURIComponent(quoteId)}`, QUOTE, "Unexpected quote", {
    method: "PATCH",
    body,
  });
}

export async function deleteQuote(jobId: string, quoteId: string): Promise<void> {
  await apiFetch(`${quotes(jobId)}/${encodeURIComponent(quoteId)}`, { method: "DELETE" });
}
