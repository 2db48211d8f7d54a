import {
  AppError,
  charCount,
  checkSummaryRequest,
  checkTitlesRequest,
  nonEmptyPhrases,
  phrasesMissingFrom,
  type SummaryResult,
  summarizeBodySchema,
  summarizeResponseSchema,
  type TextRuleViolation,
  type TitlesResult,
  titlesBodySchema,
  titlesResponseSchema,
} from "@kikitori/shared";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { TextKind, TextRunService } from "./usecases.ts";

export interface TextRouteOptions {
  signer: TokenSigner;
  /** Quota, run, queue and wait (text/usecases.ts). */
  textRuns: TextRunService;
}

/**
 * POST /api/summary/summarize and POST /api/generate-titles-and-headings. The route checks the
 * request (one error code per rule, services/shared/src/text.ts) and who asks; the text-run use case
 * reserves one run of the month's quota, stores the input, queues the job, waits for the worker's
 * result, and gives the reservation back when the run fails or times out.
 */
export const textRoutes: FastifyPluginAsyncZod<TextRouteOptions> = async (app, opts) => {
  const rejectIf = (v: TextRuleViolation | null) => {
    if (v) throw new AppError(v.code, v.message, { details: v.details });
  };

  const run = (
    req: FastifyRequest,
    uid: string,
    kind: TextKind,
    input: object,
    inputChars: number,
    language?: string,
  ) =>
    opts.textRuns.run({ userId: uid, kind, input, inputChars, language, correlationId: String(req.id), log: req.log });

  app.post(
    "/summary/summarize",
    {
      onRequest: requireAuth(opts.signer),
      schema: {
        tags: ["tools"],
        summary: "Summarise a text to a desired length, keeping the required phrases verbatim",
        description:
          "400 codes: TEXT_BLANK, TEXT_TOO_LONG, DESIRED_LENGTH_OUT_OF_RANGE (100–10000), DESIRED_LENGTH_TOO_LONG " +
          "(over the text's length in characters), REQUIRED_PHRASES_MISSING (fewer than 2 non-empty), " +
          "REQUIRED_PHRASES_TOO_MANY, REQUIRED_PHRASE_TOO_LONG, REQUIRED_PHRASES_EXCEED_LENGTH. 402 QUOTA_EXCEEDED. " +
          "missingPhrases lists the required phrases the text does not contain verbatim.",
        security: [{ bearer: [] }],
        body: summarizeBodySchema,
        response: { 200: summarizeResponseSchema, ...errorResponses(400, 401, 402, 403, 404, 502, 503, 504) },
      },
    },
    async (req) => {
      const uid = assertUid(req, req.body.uid);
      const b = req.body;
      rejectIf(checkSummaryRequest(b));
      const input = {
        text: b.text,
        requiredPhrases: nonEmptyPhrases(b.requiredPhrases),
        desiredLength: b.desiredLength,
        language: b.language,
      };
      const result = (await run(req, uid, "summary", input, charCount(b.text), b.language)) as SummaryResult;
      // Which required phrases the source lacks (the summary had to bring them in): the screen says so.
      return { summary: result.summary, missingPhrases: phrasesMissingFrom(b.text, input.requiredPhrases) };
    },
  );

  app.post(
    "/generate-titles-and-headings",
    {
      onRequest: requireAuth(opts.signer),
      schema: {
        tags: ["tools"],
        summary: "Propose article titles and one sub-heading per block of ceil(lines / numHeadingsPerArticle) lines",
        description:
          "400 codes: TEXT_BLANK, TEXT_TOO_LONG, COUNT_TOO_LOW (below 1), COUNT_TOO_HIGH, CUSTOM_PROMPT_TOO_LONG. " +
          "402 QUOTA_EXCEEDED.",
        security: [{ bearer: [] }],
        body: titlesBodySchema,
        response: { 200: titlesResponseSchema, ...errorResponses(400, 401, 402, 403, 404, 502, 503, 504) },
      },
    },
    async (req) => {
      const uid = assertUid(req, req.body.uid);
      const b = req.body;
      rejectIf(checkTitlesRequest(b));
      const input = {
        text: b.originalText,
        numHeadings: b.numHeadingsPerArticle,
        numTitles: b.numTitles,
        customPrompt: b.customPrompt,
        language: b.language,
      };
      return (await run(req, uid, "titles", input, charCount(b.originalText), b.language)) as TitlesResult;
    },
  );
};
