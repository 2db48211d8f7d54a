// GET/PUT /api/account/glossary: the account's names and terms, spelt the user's way (at most 500
// terms of at most 100 characters; trimmed, blank ones dropped, case-insensitive duplicates removed).
import { glossaryBodySchema, glossaryResponseSchema } from "@kikitori/shared";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { GlossaryService } from "./usecases.ts";

export interface GlossaryRoutesOptions {
  glossary: GlossaryService;
  signer: TokenSigner;
}

export const glossaryRoutes: FastifyPluginAsyncZod<GlossaryRoutesOptions> = async (app, opts) => {
  const guard = requireAuth(opts.signer);
  const tags = ["identity"];
  const security = [{ bearer: [] }];

  app.get(
    "/account/glossary",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The account's glossary: names and terms written as listed in transcripts and interviews",
        security,
        response: { 200: glossaryResponseSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => opts.glossary.get(assertUid(req, undefined)),
  );

  app.put(
    "/account/glossary",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "Replace the account's glossary (at most 500 terms of at most 100 characters; trimmed, blanks and case-insensitive duplicates dropped)",
        security,
        body: glossaryBodySchema,
        response: { 200: glossaryResponseSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => opts.glossary.replace(assertUid(req, undefined), req.body.terms),
  );
};
