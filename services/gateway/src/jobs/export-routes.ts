// GET /api/transcriptions/{jobId}/export: the file the export use case (export-usecases.ts) makes,
// as an attachment.
import { exportQuerySchema } from "@kikitori/shared";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import type { JobExport } from "./export-usecases.ts";

/** GET /api/transcriptions/{jobId}/export?format=txt|md|docx|srt|vtt|json&text=transcript|interview|quotes */
export const exportRoutes: FastifyPluginAsyncZod<{ signer: TokenSigner; exports: JobExport }> = async (
  app,
  { signer, exports },
) => {
  app.get(
    "/transcriptions/:jobId/export",
    {
      onRequest: requireAuth(signer),
      schema: {
        tags: ["transcription"],
        summary:
          'Download the timed transcript (with speakers), the interview text or the saved quotes (text=quotes: each as "text" — Name [mm:ss] with its note and tags) as TXT, Markdown, DOCX, SRT, WebVTT or JSON; subtitles are cut from the timed transcript (not for quotes)',
        security: [{ bearer: [] }],
        params: z.object({ jobId: z.string().max(64) }),
        querystring: exportQuerySchema,
        response: errorResponses(400, 401, 404, 409),
      },
    },
    async (req, reply) => {
      const { name, mime, body } = await exports.file(assertUid(req, undefined), req.params.jobId, req.query);
      return reply
        .header("content-type", mime)
        .header(
          "content-disposition",
          `attachment; filename="${name.replace(/[^\x20-\x7e]/g, "_").replace(/"/g, "'")}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        )
        .header("cache-control", "no-store")
        .send(body as never); // a file, not JSON: no 200 schema
    },
  );
};
