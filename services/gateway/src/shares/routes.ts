import {
  createdShareSchema,
  createShareSchema,
  SHARES_PER_JOB_MAX,
  sharedTranscriptionSchema,
  shareListSchema,
} from "@kikitori/shared";
import type { ObjectStore } from "@kikitori/shared/server";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { sendStoredAudio } from "../lib/audio-stream.ts";
import type { ShareService } from "./usecases.ts";

export interface ShareRoutesOptions {
  signer: TokenSigner;
  store: ObjectStore;
  shares: ShareService;
  /** GET /api/shared/{token} per IP and minute (its audio URL: five times as many). */
  perIpPerMinute: number;
}

const tags = ["sharing"];
const jobParams = z.object({ jobId: z.string().max(64) });
const tokenParams = z.object({ token: z.string().max(128) });

/** A shared page's answers (also its errors) are neither cached nor indexed. */
async function privateAnswer(_req: FastifyRequest, reply: FastifyReply) {
  reply.header("cache-control", "no-store").header("x-robots-tag", "noindex, nofollow");
}

/**
 * Read-only share links: the owner makes, lists and revokes a job's links; GET /api/shared/{token}
 * answers anyone holding a live one (no login), and its signed audio URL plays the recording.
 */
export const shareRoutes: FastifyPluginAsyncZod<ShareRoutesOptions> = async (app, opts) => {
  const { shares, store } = opts;
  const guard = requireAuth(opts.signer);
  const perMinute = (max: number) => ({ rateLimit: { max, timeWindow: "1 minute" } });

  app.post(
    "/transcriptions/:jobId/shares",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: `Make a read-only link to the job (1–90 days, with or without its audio): the token and URL are shown only here; 409 SHARE_LIMIT_REACHED beyond ${SHARES_PER_JOB_MAX} live links, 409 JOB_NOT_READY before the transcript exists`,
        security: [{ bearer: [] }],
        params: jobParams,
        body: createShareSchema,
        response: { 201: createdShareSchema, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (req, reply) => {
      const created = await shares.create(assertUid(req, undefined), req.params.jobId, req.body);
      req.log.info({ jobId: req.params.jobId, shareId: created.id }, "share link made");
      return reply.code(201).send(created);
    },
  );

  app.get(
    "/transcriptions/:jobId/shares",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The job's live share links (neither expired nor revoked), newest first; tokens are not kept",
        security: [{ bearer: [] }],
        params: jobParams,
        response: { 200: shareListSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => ({ shares: await shares.list(assertUid(req, undefined), req.params.jobId) }),
  );

  app.delete(
    "/transcriptions/:jobId/shares/:shareId",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Revoke a share link: it stops working at once (its page and audio answer 404)",
        security: [{ bearer: [] }],
        params: jobParams.extend({ shareId: z.string().max(64) }),
        response: { 204: z.null(), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      await shares.revoke(assertUid(req, undefined), req.params.jobId, req.params.shareId);
      req.log.info({ jobId: req.params.jobId, shareId: req.params.shareId }, "share link revoked");
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/shared/:token",
    {
      onRequest: privateAnswer,
      config: perMinute(opts.perIpPerMinute),
      schema: {
        tags,
        summary:
          "A shared transcription, read-only, without login: title, speakers, timed transcript, interview text, and a 15-minute audio URL when the link includes the audio; 404 for an unknown, expired or revoked link",
        params: tokenParams,
        response: { 200: sharedTranscriptionSchema, ...errorResponses(404, 429) },
      },
    },
    async (req) => shares.open(req.params.token),
  );

  app.get(
    "/shared/:token/audio",
    {
      onRequest: privateAnswer,
      config: perMinute(opts.perIpPerMinute * 5),
      schema: {
        tags,
        summary:
          "A shared link's audio (HTTP range requests), at the signed URL GET /api/shared/{token} gave: 403 once its 15 minutes are over or when altered, 404 when the link is gone, 410 after the retention period",
        params: tokenParams,
        querystring: z.object({ exp: z.coerce.number().int().min(0).max(1e11), sig: z.string().max(128) }),
      },
    },
    async (req, reply) => {
      const audio = await shares.audio(req.params.token, req.query.exp, req.query.sig);
      return sendStoredAudio(req, reply, store, audio, "private, no-store");
    },
  );
};
