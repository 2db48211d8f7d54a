/** The account's glossary (GET/PUT /api/account/glossary), read through the shared schema. */
import { glossaryResponseSchema } from "@kikitori/shared";
import { apiFetchParsed, bySchema } from "../api/client.ts";

export const glossaryApi = {
  get: (signal?: AbortSignal) =>
    apiFetchParsed("/api/account/glossary", bySchema(glossaryResponseSchema), "Unexpected glossary answer", {
      signal,
    }),
  put: (terms: string[]) =>
    apiFetchParsed("/api/account/glossary", bySchema(glossaryResponseSchema), "Unexpected glossary answer", {
      method: "PUT",
      body: { terms },
    }),
};
