// Deleting a job and retrying a failed one; the rules are in the jobs use cases (usecases.ts).
import { transcriptionSnapshotSchema } from "@kikitori/shared";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { JobService } from "./usecases.ts";

export interface ManageRoutesOptions {
  signer: TokenSigner;
  jobs: JobService;
}

/** DELETE a job (its audio, chunks and texts) and retry a failed one without uploading again. */
export const manageRoutes: FastifyPluginAsyncZod<ManageRoutesOptions> = async (app, { signer, jobs }) => {
  const guard = requireAuth(signer);
  const params = z.object({ jobId: z.string().max(64) });

  app.delete(
    "/transcriptions/:jobId",
    {
      onRequest: guard,
      schema: {
        tags: ["transcription"],
        summary: "Delete a job: its audio and pieces leave the object store, its texts the database",
        security: [{ bearer: [] }],
        params,
        response: { 204: z.null(), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      await jobs.remove(assertUid(req, undefined), req.params.jobId, req.log);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/transcriptions/:jobId/retry",
    {
      onRequest: guard,
      schema: {
        tags: ["transcription"],
        summary:
          "Run a failed job again from where it stopped (finished chunks are kept; usage is never charged twice)",
        security: [{ bearer: [] }],
        params,
        response: { 202: transcriptionSnapshotSchema, ...errorResponses(401, 402, 404, 409, 410) },
      },
    },
    async (req, reply) => {
      const snapshot = await jobs.retry(assertUid(req, undefined), req.params.jobId, req.log);
      return reply.code(202).send(snapshot);
    },
  );
};
