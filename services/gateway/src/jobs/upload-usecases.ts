// The upload use case: a recording already streamed to a temp file becomes a queued transcription.
// The routes (upload-routes.ts, and the resumable uploads' services/gateway/src/uploads/) parse the
// body and check who is asking; everything from "is the file there" to "the job is queued" happens
// here, against ports that upload-adapters.ts binds to ffprobe/ffmpeg, S3, Postgres, BullMQ and
// Redis, and that the unit tests replace with in-memory fakes.
import {
  AppError,
  type AudioFormat,
  type Language,
  matchLanguage,
  normalizeLanguage,
  type ProgressEnvelope,
  QUEUES,
  type SpeechStatus,
  speechRefuses,
  uploadFieldsSchema,
} from "@kikitori/shared";
import { chargeableSeconds, type JobQueues, type Logger, mimeOf, wavPcmInfo } from "@kikitori/shared/server";
import type { z } from "zod";
import { audioFileUrl } from "../lib/paths.ts";

/** How long an upload waits for a decode slot of its gateway before a 503. */
export const DECODE_WAIT_MS = 60_000;

/** The upload form's fields, as uploadFieldsSchema gives them. */
export type UploadFields = z.output<typeof uploadFieldsSchema>;

/** The form's fields as sent (multipart fields, or a resumable upload's metadata) checked: 400 VALIDATION_FAILED with each problem. */
export function parseUploadFields(fields: Record<string, string>): UploadFields {
  const parsed = uploadFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    throw new AppError(
      "VALIDATION_FAILED",
      parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
      { details: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
    );
  }
  return parsed.data;
}

/** The file part of the form, already on disk. `head`: its first bytes (at least 4 KiB when it has them). */
export interface UploadedFile {
  path: string;
  name: string;
  bytes: number;
  head: Buffer;
  /** Its hex SHA-256, taken as it arrived (the store signs it without reading the file again). */
  sha256?: string;
}

export interface UploadRequest {
  userId: string;
  fields: UploadFields;
  /** Null when the form had no file part. */
  file: UploadedFile | null;
  /** The request id: it follows the job through the queues and the logs. */
  correlationId: string;
  log: Pick<Logger, "warn">;
}

export interface AcceptedUpload {
  jobId: string;
  bytes: number;
  format: AudioFormat;
  /** Decoded length in seconds (what the minutes are counted on). */
  durationSeconds: number;
}

/** The transcription_jobs row an accepted upload creates. */
export interface NewTranscriptionJob {
  id: string;
  userId: string;
  correlationId: string;
  audioKey: string;
  audioMime: string;
  audioFormat: AudioFormat;
  audioBytes: number;
  /** The audio stream measured and charged (0-based among the file's audio streams); the worker decodes it alone. */
  audioStream: number;
  durationSeconds: number;
  /** Held of the user's quota until the transcript is charged: what it will be charged (chargeableSeconds). */
  reservedSeconds: number;
  originalName: string;
  model: UploadFields["model"];
  interviewer: string;
  interviewee: string;
  tone: UploadFields["tone"];
  interviewExample: string;
  language: Language;
  audioLanguage: string;
  speakerCount: UploadFields["speakers"];
  audioExpiresAt: Date;
  /** The glossary the job uses: the upload's terms, else the account's. */
  glossary: string[];
}

/** What the use case needs from outside; adapters.ts has the real ones. */
export interface UploadPorts {
  /** What the speech engine in use can transcribe (the workers publish it). */
  speechStatus(): Promise<SpeechStatus>;
  /** The account's glossary (used when the upload gives none). */
  accountGlossary(userId: string): Promise<string[]>;
  /** Seconds of transcription left this period for the user (in-flight uploads' reservations counted). */
  secondsLeft(userId: string): Promise<number>;
  /** The container from the file's first bytes (`head`), reading past a long ID3 tag; null: not accepted audio. */
  sniff(path: string, head: Buffer): Promise<AudioFormat | null>;
  /** Takes one of this gateway's decode slots (waiting up to DECODE_WAIT_MS); resolves to its release. */
  decodeSlot(): Promise<() => void>;
  /**
   * The audio stream to use and the length it claims (ffprobe with the sniffed format's demuxer);
   * null when it is no audio ffprobe can read.
   */
  probe(path: string, format: AudioFormat): Promise<{ durationSeconds: number; stream: number } | null>;
  /** Seconds of that stream that really decode, reading no further than `maxSeconds`. */
  decodedSeconds(path: string, format: AudioFormat, stream: number, maxSeconds: number): Promise<number>;
  /** The object store, for the recording. */
  audio: {
    put(key: string, path: string, bytes: number, contentType: string, sha256?: string): Promise<void>;
    remove(key: string): Promise<void>;
  };
  /**
   * Records the job and reserves its seconds in one step, only while the user's plan still has them
   * (with every other in-flight upload's reservation counted); false when it no longer does.
   */
  jobs: { createReserved(row: NewTranscriptionJob): Promise<boolean> };
  /** The registry's producer (services/shared/src/jobs.ts). */
  queues: Pick<JobQueues, "enqueue">;
  /** Tells the user's open sockets (progress fan-out). */
  publish(envelope: ProgressEnvelope): Promise<unknown>;
  /** The plan page in the user's language (the link of QUOTA_EXCEEDED). */
  planLink(language: Language): string;
  retentionDays: number;
  now(): Date;
  newId(): string;
}

export const audioKeyOf = (userId: string, jobId: string, format: AudioFormat) =>
  `users/${userId}/audio/${jobId}.${format}`;

export class UploadService {
  constructor(private readonly ports: UploadPorts) {}

  /**
   * Stores the recording under its key; resolves to null, or to the 503 to answer when the store failed
   * (nothing half-written stays behind: a PUT cut mid-way is removed).
   */
  private store(key: string, file: UploadedFile, format: AudioFormat): Promise<AppError | null> {
    const p = this.ports;
    return p.audio.put(key, file.path, file.bytes, mimeOf(format), file.sha256).then(
      () => null,
      async (err) => {
        await p.audio.remove(key).catch(() => undefined);
        return new AppError("SERVICE_UNAVAILABLE", "The file store is unavailable right now; please try again", {
          cause: err,
        });
      },
    );
  }

  /**
   * The stream to transcribe and its length: probed (one of this gateway's decode slots), the minutes
   * left must cover the probed length before any decoding, then the stream must really decode (read
   * no further than the minutes left) and the decoded length must be covered too.
   */
  private async check(
    file: UploadedFile,
    format: AudioFormat,
    left: number,
    overQuota: (seconds: number) => AppError,
  ): Promise<{ duration: number; stream: number }> {
    const p = this.ports;
    const damaged = () =>
      new AppError(
        "AUDIO_DAMAGED",
        `The file is ${format.toUpperCase()} audio, but it is damaged or incomplete and could not be decoded`,
      );
    // An uncompressed WAV is measured from its header: every data byte is a sample, so the bytes
    // present are what ffprobe reports and what would decode (no ffprobe, no decode slot).
    const pcm = format === "wav" ? wavPcmInfo(file.head, file.bytes) : null;
    if (pcm) {
      if (left < chargeableSeconds(pcm.presentSeconds)) throw overQuota(pcm.presentSeconds);
      if (pcm.presentSeconds < 0.5) throw damaged();
      return { duration: pcm.presentSeconds, stream: 0 };
    }
    const releaseDecode = await p.decodeSlot();
    let decoded: number;
    let stream: number;
    try {
      const probe = await p.probe(file.path, format);
      if (!probe) throw damaged();
      if (left < chargeableSeconds(probe.durationSeconds)) throw overQuota(probe.durationSeconds);
      stream = probe.stream;
      decoded = await p.decodedSeconds(file.path, format, stream, left + 1);
      if (decoded < 0.5 || decoded < probe.durationSeconds * 0.5) {
        throw damaged();
      }
    } finally {
      releaseDecode();
    }
    if (left < chargeableSeconds(decoded)) throw overQuota(decoded);
    return { duration: decoded, stream };
  }

  /**
   * Checks the recording and queues its transcription: (1) a file that is there and not empty, in a
   * language the engine hears; (2) audio recognised from its bytes, its audio stream chosen and its
   * length read (ffprobe, with the sniffed format's demuxer; an uncompressed WAV from its header); (3) the minutes left (in-flight uploads
   * counted) must cover it, settled before any decoding; (4) that stream must really decode, read no
   * further than the minutes left (a header may claim less than there is). It is stored under a
   * per-user key meanwhile (taken back out when refused), recorded with its seconds reserved
   * (atomically, so parallel uploads cannot overspend), queued, and the user's sockets are told.
   */
  async accept(req: UploadRequest): Promise<AcceptedUpload> {
    const p = this.ports;
    const { userId: uid, fields, file } = req;
    if (!file) throw new AppError("FILE_MISSING", "No audio file was sent (field 'file')");
    if (file.bytes === 0) throw new AppError("FILE_EMPTY", "The audio file is empty");
    // The engine must hear the language (a start-time fact the workers publish): refuse before any decoding.
    const speech = await p.speechStatus();
    if (speechRefuses(speech, fields.language)) {
      throw new AppError(
        "TRANSCRIPTION_LANGUAGE_UNSUPPORTED",
        `The speech engine in use (${speech.engine}) only transcribes ${[speech.languages].flat().join(", ")}, not "${fields.language}". ${speech.notice ? `${speech.notice.reason} Set ${speech.notice.setting} to transcribe every language.` : ""}`.trim(),
      );
    }

    const format = await p.sniff(file.path, file.head);
    if (!format)
      throw new AppError(
        "UNSUPPORTED_AUDIO",
        "The file is not a recording we can read (MP3, WAV, Ogg/Opus, FLAC, AAC, M4A, MP4/MOV video or WebM)",
      );
    const lang = normalizeLanguage(fields.uiLanguage ?? matchLanguage(fields.language));
    const left = await p.secondsLeft(uid);
    const overQuota = (seconds: number) =>
      new AppError(
        "QUOTA_EXCEEDED",
        `This recording is ${Math.ceil(seconds / 60)} min long, but only ${Math.floor(left / 60)} min are left this month`,
        { link: p.planLink(lang) },
      );
    const jobId = p.newId();
    const audioKey = audioKeyOf(uid, jobId, format);
    // The store write runs while the recording is checked (the answer waits for both); a recording
    // the checks refuse is taken back out of the store.
    const storing = this.store(audioKey, file, format);
    let checked: { duration: number; stream: number };
    try {
      checked = await this.check(file, format, left, overQuota);
    } catch (err) {
      await storing;
      await p.audio.remove(audioKey).catch(() => undefined);
      throw err;
    }
    const storeError = await storing;
    if (storeError) throw storeError;
    const { duration, stream } = checked;
    const glossary = fields.glossary ?? (await p.accountGlossary(uid));
    const { correlationId } = req;
    // No job row, no object: a failed insert (or a quota another upload took meanwhile) takes the
    // stored audio back out.
    const created = await p.jobs
      .createReserved({
        id: jobId,
        userId: uid,
        correlationId,
        audioKey,
        audioMime: mimeOf(format),
        audioFormat: format,
        audioBytes: file.bytes,
        audioStream: stream,
        durationSeconds: duration,
        reservedSeconds: chargeableSeconds(duration),
        originalName: file.name.slice(0, 255),
        model: fields.model,
        interviewer: fields.interviewer,
        interviewee: fields.interviewee,
        tone: fields.tone,
        interviewExample: fields.interviewExample,
        language: lang,
        audioLanguage: fields.language,
        speakerCount: fields.speakers,
        audioExpiresAt: new Date(p.now().getTime() + p.retentionDays * 86_400_000),
        glossary,
      })
      .catch(async (err) => {
        await p.audio.remove(audioKey).catch(() => undefined);
        throw err;
      });
    if (!created) {
      await p.audio.remove(audioKey).catch(() => undefined);
      throw overQuota(duration);
    }
    // The job id doubles as BullMQ's: a second add of the same upload changes nothing.
    await p.queues.enqueue(
      QUEUES.transcription,
      "transcribe",
      { jobId, userId: uid, audioKey, correlationId },
      { jobId },
    );
    await p
      .publish({
        userId: uid,
        correlationId,
        event: { jobId, status: "File uploaded", audioFileUrl: audioFileUrl(jobId) },
      })
      .catch((err) => req.log.warn({ err }, "could not publish File uploaded"));
    return { jobId, bytes: file.bytes, format, durationSeconds: duration };
  }
}
