// Reading the user's jobs: a job's snapshot, the jobs a page at a time (the library), and a job's
// stored audio. The rules are in the jobs use cases (usecases.ts).
import {
  libraryListSchema,
  transcriptionListQuerySchema,
  transcriptionListSchema,
  transcriptionSnapshotSchema,
} from "@kikitori/shared";
import type { ObjectStore } from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { sendStoredAudio } from "../lib/audio-stream.ts";
import type { JobService } from "./usecases.ts";

export interface JobReadRoutesOptions {
  signer: TokenSigner;
  jobs: JobService;
  /** Where the audio is streamed from (HTTP range requests). */
  store: ObjectStore;
}

/** A job's snapshot, the user's jobs a page at a time, and a job's stored audio. */
export const jobReadRoutes: FastifyPluginAsyncZod<JobReadRoutesOptions> = async (app, { signer, jobs, store }) => {
  const guard = requireAuth(signer);
  const tags = ["transcription"];

  app.get(
    "/transcriptions/:jobId",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The job's snapshot",
        security: [{ bearer: [] }],
        params: z.object({ jobId: z.string().max(64) }),
        response: { 200: transcriptionSnapshotSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => jobs.snapshot(assertUid(req, undefined), req.params.jobId),
  );

  app.get(
    "/transcriptions",
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "The user's transcriptions, a page at a time: `q` finds words in the title, the file name, the transcript and the interview text (full-text search, and substrings for text without spaces: ja, zh); `sort` newest (default), oldest, title, longest or relevance (default with `q`); `view=library` answers light items (no texts) with the passage each match was found in",
        security: [{ bearer: [] }],
        querystring: transcriptionListQuerySchema,
        response: { 200: z.union([transcriptionListSchema, libraryListSchema]), ...errorResponses(400, 401) },
      },
    },
    async (req) => jobs.list(assertUid(req, undefined), req.query),
  );

  app.get(
    "/audio/:jobId",
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The stored audio (HTTP range requests); 410 after the retention period",
        security: [{ bearer: [] }],
        params: z.object({ jobId: z.string().max(64) }),
      },
    },
    async (req, reply) => {
      const audio = await jobs.audio(assertUid(req, undefined), req.params.jobId);
      return sendStoredAudio(req, reply, store, audio);
    },
  );
};
