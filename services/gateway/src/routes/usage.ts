import { type PlanName, type PlanQuota, usageRecordSchema } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { toUsageRecord } from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { usageRow } from "../jobs/repository.ts";

export const usageRoutes: FastifyPluginAsyncZod<{
  db: Db;
  signer: TokenSigner;
  quotas: Record<PlanName, PlanQuota>;
  /** The clock (tests); default the real one. */
  now?: () => Date;
}> = async (app, { db, signer, quotas, now }) => {
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
    async (req) => {
      const uid = assertUid(req, req.query.uid);
      return toUsageRecord(await usageRow(db, uid), quotas, now?.() ?? new Date());
    },
  );
};
