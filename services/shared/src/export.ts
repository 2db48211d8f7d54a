import { z } from "zod";
import { isSpacelessLanguage, spacingOf } from "./language/spacing.ts";
import { turnsFromSegments } from "./speakers.ts";
import type { JobSpeaker, TranscriptSegment } from "./speech.ts";

/**
 * Exports of a job's texts (GET /api/transcriptions/{jobId}/export): the timed transcript, the
 * interview text or the saved quotes, as TXT, Markdown, DOCX, SRT, WebVTT or JSON (quotes: TXT,
 * Markdown, DOCX, JSON). Pure text formats here (DOCX is built in the gateway with the `docx` library
 * from `exportBlocks`).
 */
export const EXPORT_FORMATS = ["txt", "md", "docx", "srt", "vtt", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const EXPORT_TEXTS = ["transcript", "interview", "quotes"] as const;
export type ExportText = (typeof EXPORT_TEXTS)[number];

export const exportQuerySchema = z.object({
  format: z.enum(EXPORT_FORMATS),
  text: z.enum(EXPORT_TEXTS).default("transcript"),
});

export const EXPORT_MIME: Record<ExportFormat, string> = {
  txt: "text/plain; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  srt: "application/x-subrip; charset=utf-8",
  vtt: "text/vtt; charset=utf-8",
  json: "application/json; charset=utf-8",
};

/** What an export is made of: the job's title, language, speakers, timed segments and interview text. */
export interface ExportSource {
  title: string;
  /** Language of the recording ("en", "ja", "ar", …): text direction and the JSON's `language`. */
  language: string;
  speakers: JobSpeaker[];
  segments: TranscriptSegment[];
  interview: string | null;
  /** Plain transcript, for jobs without timed segments. */
  transcript: string | null;
  /** Localized "Speaker {{n}}" for speakers without a name. */
  speakerLabel: (n: number) => string;
  /** The job's quotes, in time order (text=quotes). */
  quotes?: ExportQuote[];
}

/** A saved quote as exported: its current text, the speaker's name, the note and tags. */
export interface ExportQuote {
  start: number;
  speaker: string | null;
  text: string;
  note: string | null;
  tags: string[];
}

const RTL = new Set(["ar", "fa", "he", "ur", "ps", "sd", "yi", "ug"]);
export const isRtlLanguage = (lang: string) => RTL.has(lang.split(/[-_]/)[0].toLowerCase());

/**
 * A file name from the job's title and the text exported ("Interview mit Anna – interview.txt"): the
 * title's extension dropped, characters unsafe in file names replaced.
 */
export function exportFileName(title: string, text: ExportText, format: ExportFormat): string {
  const base =
    cutGraphemes(
      title
        .replace(/\.[A-Za-z0-9]{1,5}$/, "")
        // Control characters (code points below 32 and 127) and those Windows forbids in names.
        .replace(/[\p{Cc}"*/:<>?\\|]+/gu, " ")
        // A lone surrogate (never a character) cannot be encoded in a header.
        .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
        .replace(/\s+/g, " ")
        .trim(),
      EXPORT_NAME_MAX_GRAPHEMES,
    ).trim() || "transcript";
  // "{title} – interview.txt", "{title} – transcript.srt": which text it is, after the title.
  return `${base} – ${text}.${format}`;
}

/** The longest base of an export's file name, in user-perceived characters. */
export const EXPORT_NAME_MAX_GRAPHEMES = 120;

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/**
 * The first `max` grapheme clusters of `s`: a cut never falls inside a surrogate pair, an emoji
 * sequence or a letter with its combining marks (a lone surrogate would make the name unencodable).
 */
export function cutGraphemes(s: string, max: number): string {
  let end = 0;
  let n = 0;
  for (const g of graphemes.segment(s)) {
    if (n === max) return s.slice(0, end);
    end = g.index + g.segment.length;
    n++;
  }
  return s;
}

/** "01:02:03" (hours shown from one hour on: "02:03"). */
export function clock(seconds: number, withHours = seconds >= 3600): string {
  const s = Math.max(0, Math.floor(seconds));
  const hh = String(Math.floor(s / 3600)).padStart(2, "0");
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, "0");
  const ss = String(s % 60).padStart(2, "0");
  return withHours ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** "00:01:02,345" (SRT) or "00:01:02.345" (WebVTT). */
export function cueTime(seconds: number, sep: "," | "."): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const f = ms % 1000;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}${sep}${String(f).padStart(3, "0")}`;
}

/** The name exports show for a speaker: the name given, else the localized "Speaker n" (null: no speaker). */
export function speakerNameOf(
  speakers: readonly JobSpeaker[],
  speakerLabel: (n: number) => string,
  speaker: number | null | undefined,
): string | null {
  if (speaker === undefined || speaker === null) return null;
  return speakers.find((s) => s.id === speaker)?.name ?? speakerLabel(speaker + 1);
}

/** The name shown for a segment's speaker (null: no speakers known). */
function speakerName(src: ExportSource, speaker: number | undefined): string | null {
  return speakerNameOf(src.speakers, src.speakerLabel, speaker);
}

/** Quotation marks of a language: 「…」 in Japanese and Chinese, "…" elsewhere. */
function quoted(text: string, language: string | null | undefined): string {
  return spacingOf(language) === "none" ? `「${text}」` : `"${text}"`;
}

/**
 * A quote as copied and exported: `"text" — Name [mm:ss]` ([hh:mm:ss] from one hour on; no name when
 * no speaker is known).
 */
export function quoteCitation(
  q: { text: string; speaker: string | null; start: number },
  language: string | null | undefined,
  esc: (s: string) => string = (s) => s,
): string {
  return `${quoted(esc(q.text), language)}${q.speaker ? ` — ${esc(q.speaker)}` : ""} [${clock(q.start)}]`;
}

/** A quote's tags as one line ("#a #b"). */
export const tagLine = (tags: readonly string[]) => tags.map((t) => `#${t}`).join(" ");

/** A quote block's lines as plain text: the citation, then the note and the tags where there are. */
function quoteText(q: NonNullable<ExportBlock["quote"]>): string {
  return [q.citation, q.note ?? "", tagLine(q.tags)].filter(Boolean).join("\n");
}

/** A quote block in Markdown: the citation as a blockquote, the note below, the tags as code spans. */
function quoteMd(b: ExportBlock, language: string): string {
  const q = b.quote;
  if (!q) return "";
  const cite = quoteCitation({ text: b.text, speaker: b.speaker, start: b.start ?? 0 }, language, escapeMd);
  const tags = q.tags.map((t) => `\`${t.replace(/`/g, "'")}\``).join(" ");
  return [`> ${cite}`, q.note ? escapeMd(q.note) : "", tags].filter(Boolean).join("\n\n");
}

/** One block of an export: a timed turn of the transcript, or a paragraph of the interview text. */
export interface ExportBlock {
  start: number | null;
  speaker: string | null;
  text: string;
  /** A saved quote (text=quotes): shown as its citation, with its note and tags below. */
  quote?: { citation: string; note: string | null; tags: string[] };
}

/**
 * The blocks of the chosen text: the transcript as turns (consecutive segments of one speaker
 * together, each with its start), the interview text's paragraphs (their labels stay in the text), or
 * the saved quotes (each with its citation, note and tags).
 */
export function exportBlocks(src: ExportSource, text: ExportText): ExportBlock[] {
  if (text === "quotes") {
    return (src.quotes ?? []).map((q) => ({
      start: q.start,
      speaker: q.speaker,
      text: q.text,
      quote: { citation: quoteCitation(q, src.language), note: q.note, tags: q.tags },
    }));
  }
  if (text === "interview") {
    return (src.interview ?? "")
      .split(/\n{2,}/)
      .map((p) => p.trim())
      .filter(Boolean)
      .map((p) => ({ start: null, speaker: null, text: p }));
  }
  if (src.segments.length === 0) {
    return src.transcript?.trim() ? [{ start: null, speaker: null, text: src.transcript.trim() }] : [];
  }
  // Speakers heard: one block per turn; else one per timed segment.
  if (src.segments.some((s) => s.speaker !== undefined)) {
    return turnsFromSegments(src.segments, isSpacelessLanguage(src.language)).map((turn) => ({
      start: turn.start,
      speaker: speakerName(src, turn.speaker),
      text: turn.text,
    }));
  }
  return src.segments.filter((s) => s.text.trim()).map((s) => ({ start: s.start, speaker: null, text: s.text.trim() }));
}

/** The text formats (everything but DOCX). Subtitles (SRT, WebVTT) are cut from the timed transcript. */
export function renderExport(src: ExportSource, format: Exclude<ExportFormat, "docx">, text: ExportText): string {
  const hours = src.segments.some((s) => s.end >= 3600);
  switch (format) {
    case "txt":
      return `${exportBlocks(src, text)
        .map((b) =>
          b.quote
            ? quoteText(b.quote)
            : [b.start !== null ? `[${clock(b.start, hours)}]` : "", b.speaker ? `${b.speaker}:` : "", b.text]
                .filter(Boolean)
                .join(" "),
        )
        .join("\n\n")}\n`;
    case "md":
      return `# ${escapeMd(src.title)}\n\n${exportBlocks(src, text)
        .map((b) => {
          if (b.quote) return quoteMd(b, src.language);
          const head = [
            b.start !== null ? `[${clock(b.start, hours)}]` : "",
            b.speaker ? `${escapeMd(b.speaker)}:` : "",
          ]
            .filter(Boolean)
            .join(" ");
          return head ? `**${head}** ${escapeMd(b.text)}` : escapeMd(b.text);
        })
        .join("\n\n")}\n`;
    case "srt":
      return cues(src)
        .map(
          (c, i) =>
            `${i + 1}\n${cueTime(c.start, ",")} --> ${cueTime(c.end, ",")}\n${c.speaker ? `${c.speaker}: ` : ""}${c.text}\n`,
        )
        .join("\n");
    case "vtt":
      return `WEBVTT\n\n${cues(src)
        .map(
          (c, i) =>
            `${i + 1}\n${cueTime(c.start, ".")} --> ${cueTime(c.end, ".")}\n${c.speaker ? `<v ${c.speaker.replace(/[<>&]/g, "")}>` : ""}${escapeVtt(c.text)}\n`,
        )
        .join("\n")}`;
    case "json":
      return `${JSON.stringify(
        {
          title: src.title,
          language: src.language,
          speakers: src.speakers,
          segments: src.segments.map((s) => ({ ...s, speakerName: speakerName(src, s.speaker) ?? undefined })),
          transcript: src.transcript,
          interview: src.interview,
          ...(text === "quotes" ? { quotes: src.quotes ?? [] } : {}),
        },
        null,
        2,
      )}\n`;
  }
}

/** Subtitle cues: one per segment, never overlapping, at least 0.5 s long. */
function cues(src: ExportSource): Array<{ start: number; end: number; speaker: string | null; text: string }> {
  const segs = src.segments.filter((s) => s.text.trim());
  return segs.map((s, i) => {
    const next = segs[i + 1]?.start ?? Number.POSITIVE_INFINITY;
    const end = Math.min(Math.max(s.end, s.start + 0.5), next);
    return {
      start: s.start,
      end: Math.max(end, s.start + 0.001),
      speaker: speakerName(src, s.speaker),
      text: s.text.trim(),
    };
  });
}

const escapeMd = (t: string) => t.replace(/([\\`*_[\]#])/g, "\\$1");
const escapeVtt = (t: string) =>
  t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/-->/g, "--&gt;");
