// The signed-in user's plan, quotas and usage (GET /api/user-usage), from the jobs use cases.
import { usageRecordSchema } from "@kikitori/shared";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { JobService } from "./usecases.ts";

export const usageRoutes: FastifyPluginAsyncZod<{ signer: TokenSigner; jobs: JobService }> = async (
  app,
  { signer, jobs },
) => {
  app.get(
    "/user-usage",
    {
      onRequest: requireAuth(signer),
      schema: {
        tags: ["plans"],
        summary: "The signed-in user's plan, quotas, usage and reset date",
        security: [{ bearer: [] }],
        querystring: z.object({ uid: z.string().max(64).optional() }),
        response: { 200: usageRecordSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => jobs.usage(assertUid(req, req.query.uid)),
  );
};
