import {
  AppError,
  clock,
  EXPORT_MIME,
  type ExportBlock,
  type ExportSource,
  exportBlocks,
  exportFileName,
  exportQuerySchema,
  isRtlLanguage,
  type JobSpeaker,
  jobTextLanguage,
  renderExport,
  type TranscriptSegment,
  tagLine,
} from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import { fill, speakerLabels } from "@kikitori/shared/server";
import { AlignmentType, Document, HeadingLevel, Packer, Paragraph, TextRun } from "docx";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { ownJob } from "../jobs/repository.ts";
import type { QuoteService } from "../quotes/usecases.ts";
import { jobTitle } from "./snapshot.ts";

/** A quote's paragraph: its citation, then its note (in italics) and its tags on lines of their own. */
function quoteRuns(q: NonNullable<ExportBlock["quote"]>, rtl: boolean): TextRun[] {
  return [
    new TextRun({ text: q.citation, rightToLeft: rtl }),
    ...(q.note ? [new TextRun({ text: q.note, italics: true, break: 1, rightToLeft: rtl })] : []),
    ...(q.tags.length ? [new TextRun({ text: tagLine(q.tags), color: "666666", break: 1, rightToLeft: rtl })] : []),
  ];
}

/** A Word document of the blocks: a title, then one paragraph per turn, right to left where the language is. */
export async function docxOf(title: string, blocks: ExportBlock[], language: string): Promise<Buffer> {
  const rtl = isRtlLanguage(language);
  const align = rtl ? AlignmentType.RIGHT : AlignmentType.LEFT;
  const doc = new Document({
    title,
    creator: "Kikitori",
    sections: [
      {
        children: [
          new Paragraph({
            heading: HeadingLevel.TITLE,
            bidirectional: rtl,
            alignment: align,
            children: [new TextRun({ text: title, rightToLeft: rtl })],
          }),
          ...blocks.map(
            (b) =>
              new Paragraph({
                bidirectional: rtl,
                alignment: align,
                spacing: { after: 160 },
                children: b.quote
                  ? quoteRuns(b.quote, rtl)
                  : [
                      ...(b.start !== null
                        ? [new TextRun({ text: `[${clock(b.start, true)}] `, color: "666666" })]
                        : []),
                      ...(b.speaker ? [new TextRun({ text: `${b.speaker}: `, bold: true, rightToLeft: rtl })] : []),
                      new TextRun({ text: b.text, rightToLeft: rtl }),
                    ],
              }),
          ),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

/** GET /api/transcriptions/{jobId}/export?format=txt|md|docx|srt|vtt|json&text=transcript|interview|quotes */
export const exportRoutes: FastifyPluginAsyncZod<{ db: Db; signer: TokenSigner; quotes: QuoteService }> = async (
  app,
  { db, signer, quotes },
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
      const uid = assertUid(req, undefined);
      const job = await ownJob(db, uid, req.params.jobId);
      const { format, text } = req.query;
      if (text === "interview" ? job.rewrittenText === null : job.transcription === null) {
        throw new AppError(
          "JOB_NOT_READY",
          `The ${text === "interview" ? "interview text" : "transcript"} is not written yet`,
        );
      }
      if (text === "quotes" && (format === "srt" || format === "vtt")) {
        throw new AppError("VALIDATION_FAILED", "Quotes are exported as txt, md, docx or json");
      }
      const segments = Array.isArray(job.segments) ? (job.segments as TranscriptSegment[]) : [];
      if ((format === "srt" || format === "vtt") && segments.length === 0) {
        throw new AppError("JOB_NOT_READY", "Subtitles need a timed transcript, which this job does not have");
      }
      const labels = speakerLabels(job.language);
      const language = jobTextLanguage(job);
      const src: ExportSource = {
        title: jobTitle(job),
        language,
        speakers: Array.isArray(job.speakers) ? (job.speakers as JobSpeaker[]) : [],
        segments,
        interview: job.rewrittenText,
        transcript: job.transcription,
        speakerLabel: (n) => fill(labels.other, { n }),
        quotes: text === "quotes" ? await quotes.forExport(job) : undefined,
      };
      const name = exportFileName(jobTitle(job), text, format);
      const body =
        format === "docx"
          ? await docxOf(src.title, exportBlocks(src, text), language)
          : renderExport(src, format, text);
      return reply
        .header("content-type", EXPORT_MIME[format])
        .header(
          "content-disposition",
          `attachment; filename="${name.replace(/[^\x20-\x7e]/g, "_").replace(/"/g, "'")}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        )
        .header("cache-control", "no-store")
        .send(body as never); // a file, not JSON: no 200 schema
    },
  );
};
