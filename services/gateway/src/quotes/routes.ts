import {
  createQuoteSchema,
  patchQuoteSchema,
  QUOTES_PER_JOB_MAX,
  quoteListSchema,
  quoteSchema,
} from "@kikitori/shared";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { QuoteService } from "./usecases.ts";

export interface QuoteRoutesOptions {
  signer: TokenSigner;
  quotes: QuoteService;
}

const tags = ["transcription"];
const jobParams = z.object({ jobId: z.string().max(64) });
const quoteParams = jobParams.extend({ quoteId: z.string().max(64) });

/**
 * Quotes of a job: saved from a time range of the recording (text and speaker cut from the timed
 * transcript), listed, noted and tagged, deleted. Exported with GET …/export?text=quotes.
 */
export const quoteRoutes: FastifyPluginAsyncZod<QuoteRoutesOptions> = async (app, opts) => {
  const { quotes } = opts;
  const guard = requireAuth(opts.signer);

  app.post(
    "/transcriptions/:jobId/quotes",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: `Save a quote: the words said between start and end (seconds) with their speaker's name, and an optional note and tags; 400 for a range outside the recording or without words, 409 QUOTE_LIMIT_REACHED beyond ${QUOTES_PER_JOB_MAX} quotes, 409 JOB_NOT_READY without a timed transcript`,
        security: [{ bearer: [] }],
        params: jobParams,
        body: createQuoteSchema,
        response: { 201: quoteSchema, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (req, reply) => {
      const quote = await quotes.create(assertUid(req, undefined), req.params.jobId, req.body);
      req.log.info({ jobId: req.params.jobId, quoteId: quote.id }, "quote saved");
      return reply.code(201).send(quote);
    },
  );

  app.get(
    "/transcriptions/:jobId/quotes",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "The job's quotes in the order of the recording, each with its words as the transcript says them now; `stale` (with `savedText`) when they were edited since the quote was saved",
        security: [{ bearer: [] }],
        params: jobParams,
        response: { 200: quoteListSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => ({ quotes: await quotes.list(assertUid(req, undefined), req.params.jobId) }),
  );

  app.patch(
    "/transcriptions/:jobId/quotes/:quoteId",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Change a quote's note or tags, or accept its current words (`accept: true`: no longer stale)",
        security: [{ bearer: [] }],
        params: quoteParams,
        body: patchQuoteSchema,
        response: { 200: quoteSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => quotes.update(assertUid(req, undefined), req.params.jobId, req.params.quoteId, req.body),
  );

  app.delete(
    "/transcriptions/:jobId/quotes/:quoteId",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Delete a quote",
        security: [{ bearer: [] }],
        params: quoteParams,
        response: { 204: z.null(), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      await quotes.remove(assertUid(req, undefined), req.params.jobId, req.params.quoteId);
      return reply.code(204).send(null);
    },
  );
};
