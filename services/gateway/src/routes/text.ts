import { randomUUID } from "node:crypto";
import {
  AppError,
  charCount,
  checkSummaryRequest,
  checkTitlesRequest,
  DEFAULT_LANGUAGE,
  ERROR_CODES,
  type ErrorCode,
  isSupportedLanguage,
  nonEmptyPhrases,
  type PlanName,
  type PlanQuota,
  pageUrl,
  phrasesMissingFrom,
  QUEUES,
  type SummaryResult,
  summarizeBodySchema,
  summarizeResponseSchema,
  type TextJob,
  type TextRuleViolation,
  type TitlesResult,
  textJobSchema,
  titlesBodySchema,
  titlesResponseSchema,
} from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  createQueue,
  createQueueEvents,
  failTextRun,
  type Job,
  type ObjectStore,
  type Redis,
  releaseCount,
  reserveCount,
  TEXT_RUN_STATUS,
  textInputKey,
} from "@kikitori/shared/server";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";

export interface TextRouteOptions {
  db: Db;
  store: ObjectStore;
  signer: TokenSigner;
  /** Producer connection (enqueueing); the job events get their own connection from its options. */
  redis: Redis;
  redisPrefix: string;
  quotas: Record<PlanName, PlanQuota>;
  timeoutMs: number;
  publicUrl: string;
  contactUrl: string;
}

type Kind = TextJob["kind"];

/**
 * POST /api/summary/summarize and POST /api/generate-titles-and-headings. The gateway checks the
 * request (one error code per rule of spec section 5), reserves one run of the month's quota, stores
 * the input and enqueues a QUEUES.text job; a worker generates, and the gateway waits for the job's
 * result. A failed or timed-out run gives the reservation back, so only results are charged.
 */
export const textRoutes: FastifyPluginAsyncZod<TextRouteOptions> = async (app, opts) => {
  const { db, store, quotas } = opts;
  const queue = createQueue(QUEUES.text, opts.redis, opts.redisPrefix);
  // QueueEvents reads a Redis stream with blocking calls: it needs a connection of its own.
  const events = createQueueEvents(QUEUES.text, opts.redis, opts.redisPrefix);
  events.on("error", (err) => app.log.warn({ err: err.message }, "text queue events error"));
  app.addHook("onClose", async () => {
    await events.close();
    await queue.close();
  });
  // Listen before the first request (events before the listener starts would be missed), without
  // holding the gateway's start hostage to Redis.
  await Promise.race([events.waitUntilReady(), new Promise((r) => setTimeout(r, 5_000).unref())]).catch((err) =>
    app.log.warn({ err }, "text queue events not ready yet"),
  );

  const rejectIf = (v: TextRuleViolation | null) => {
    if (v) throw new AppError(v.code, v.message, { details: v.details });
  };

  const planLink = (language?: string) => {
    const lang = language && isSupportedLanguage(language) ? language : DEFAULT_LANGUAGE;
    return pageUrl(opts.publicUrl, lang, "upgradePlan");
  };

  async function run(
    req: FastifyRequest,
    uid: string,
    kind: Kind,
    input: object,
    inputChars: number,
    language?: string,
  ): Promise<SummaryResult | TitlesResult> {
    if (!(await reserveCount(db, uid, kind, quotas))) {
      throw new AppError(
        "QUOTA_EXCEEDED",
        kind === "summary"
          ? "This month's summaries are used up. Upgrade your plan to continue."
          : "This month's title and heading generations are used up. Upgrade your plan to continue.",
        { link: planLink(language) },
      );
    }
    const runId = randomUUID();
    const inputKey = textInputKey(uid, runId);
    let job: Job;
    try {
      await db.textRun.create({ data: { id: runId, userId: uid, kind, status: TEXT_RUN_STATUS.running, inputChars } });
    } catch (err) {
      await releaseCount(db, uid, kind);
      throw err;
    }
    try {
      const body = Buffer.from(JSON.stringify(input), "utf8");
      await store.put(inputKey, body, body.length, "application/json");
      const payload = textJobSchema.parse({ runId, userId: uid, kind, inputKey, correlationId: req.id });
      // Retried once on a passing fault; a bad answer is retried inside the engine, not here.
      job = await queue.add(kind, payload, { jobId: runId, attempts: 2, backoff: { type: "fixed", delay: 1000 } });
    } catch (err) {
      await failTextRun(db, runId, "failed", "SERVICE_UNAVAILABLE");
      req.log.error({ err, runId }, "text job could not be enqueued");
      throw new AppError("SERVICE_UNAVAILABLE", "The service is temporarily unavailable. Please try again shortly.");
    }

    try {
      return (await job.waitUntilFinished(events, opts.timeoutMs)) as SummaryResult | TitlesResult;
    } catch (err) {
      const timedOut = err instanceof Error && /timed out before finishing/.test(err.message);
      if (timedOut) {
        // Stop waiting: end the run (the quota goes back). A result arriving later is dropped.
        if (await failTextRun(db, runId, "timed_out", "GENERATION_TIMEOUT", opts.timeoutMs)) {
          await job.remove().catch(() => undefined);
          throw new AppError("GENERATION_TIMEOUT", "Generation took too long. Please try again.", {
            link: opts.contactUrl,
          });
        }
      } else {
        // The worker normally ends the run itself; make sure the reservation is given back anyway.
        await failTextRun(db, runId, "failed", "GENERATION_FAILED");
      }
      const row = await db.textRun.findUnique({ where: { id: runId } });
      if (row?.status === TEXT_RUN_STATUS.succeeded && row.result) return row.result as unknown as SummaryResult;
      throw failureError(row?.errorCode, err, kind, opts.contactUrl);
    }
  }

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

/** The error a failed run answers with: the worker's code when it is one of ours, else GENERATION_FAILED. */
function failureError(code: string | null | undefined, err: unknown, kind: Kind, contactUrl: string): AppError {
  const known = code && code in ERROR_CODES ? (code as ErrorCode) : null;
  const fallback = kind === "summary" ? "Failed to generate the summary." : "Failed to generate titles and headings.";
  if (known && known !== "INTERNAL" && known !== "GENERATION_FAILED") {
    const message = err instanceof Error && err.message ? err.message : fallback;
    return new AppError(known, message, known === "SERVICE_UNAVAILABLE" ? {} : { link: contactUrl });
  }
  return new AppError("GENERATION_FAILED", fallback, { link: contactUrl });
}
