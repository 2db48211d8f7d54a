// A job's texts as a file (GET /api/transcriptions/{jobId}/export): the timed transcript, the
// interview text or the saved quotes, as TXT, Markdown, DOCX, SRT, WebVTT or JSON. The text formats are
// rendered in shared (services/shared/src/export.ts); the Word document here.
import {
  AppError,
  clock,
  EXPORT_MIME,
  type ExportBlock,
  type ExportFormat,
  type ExportSource,
  type ExportText,
  exportBlocks,
  exportFileName,
  isRtlLanguage,
  type JobSpeaker,
  jobTextLanguage,
  renderExport,
  type TranscriptSegment,
  tagLine,
} from "@kikitori/shared";
import { fill, type JobRow, speakerLabels } from "@kikitori/shared/server";
import { AlignmentType, Document, HeadingLevel, Packer, Paragraph, TextRun } from "docx";
import { jobTitle } from "./snapshot.ts";
import type { JobRepository } from "./usecases.ts";

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

/** A file to download: its name, type and bytes. */
export interface ExportFile {
  name: string;
  mime: string;
  body: string | Buffer;
}

/** The user's job as a file of the asked text and format. */
export class JobExport {
  constructor(
    private readonly repo: Pick<JobRepository, "ownJob">,
    private readonly quotes: { forExport(job: JobRow): Promise<NonNullable<ExportSource["quotes"]>> },
  ) {}

  async file(uid: string, jobId: string, query: { format: ExportFormat; text: ExportText }): Promise<ExportFile> {
    const job = await this.repo.ownJob(uid, jobId);
    const { format, text } = query;
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
      quotes: text === "quotes" ? await this.quotes.forExport(job) : undefined,
    };
    const body =
      format === "docx" ? await docxOf(src.title, exportBlocks(src, text), language) : renderExport(src, format, text);
    return { name: exportFileName(jobTitle(job), text, format), mime: EXPORT_MIME[format], body };
  }
}
