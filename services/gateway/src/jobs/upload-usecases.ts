// The upload use case: a recording already streamed to a temp file becomes an accepted transcription.
// The routes (upload-routes.ts, and the resumable uploads' services/gateway/src/uploads/) parse the
// body and check who is asking; everything from "is the file there" to "the job holds its minutes"
// happens here, against ports that upload-adapters.ts binds to ffprobe/ffmpeg, S3, Postgres and
// Redis, and that the unit tests replace with in-memory fakes. The store write and the queueing come
// after the answer (audio-handoff.ts).
import {
  AppError,
  type AudioFormat,
  type Language,
  matchLanguage,
  normalizeLanguage,
  type SpeechStatus,
  speechRefuses,
  uploadFieldsSchema,
} from "@kikitori/shared";
import {
  AUDIO_NOT_STORED,
  chargeableSeconds,
  type Logger,
  mimeOf,
  type NewJobRow,
  wavPcmInfo,
} from "@kikitori/shared/server";
import type { z } from "zod";
import type { HeldBytes, PendingRecording } from "./audio-handoff.ts";

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

/**
 * The file part of the form, alone in its own folder (an accepted upload's folder is taken over by
 * the hand-off): on disk at `path`, or `held` in memory (then only a recording measured from its
 * header; the hand-off writes it to `path`). `head`: its first bytes (at least 4 KiB when it has them).
 */
export interface UploadedFile {
  path: string;
  name: string;
  bytes: number;
  head: Buffer;
  held?: HeldBytes;
}

/** What an upload needs besides its body, asked for while the body arrives (UploadService.prepare). */
export interface UploadPrelude {
  speech: Promise<SpeechStatus>;
  accountGlossary: Promise<string[]>;
  /** Rejects when the object store does not answer (the upload is then refused with a 503). */
  storeReachable: Promise<void>;
}

export interface UploadRequest {
  userId: string;
  fields: UploadFields;
  /** Null when the form had no file part. */
  file: UploadedFile | null;
  /** The request id: it follows the job through the queues and the logs. */
  correlationId: string;
  log: Pick<Logger, "warn">;
  /** prepare()'s answers, when the route asked for them while the body arrived. */
  prelude?: UploadPrelude;
}

export interface AcceptedUpload {
  jobId: string;
  bytes: number;
  format: AudioFormat;
  /** Decoded length in seconds (what the minutes are counted on). */
  durationSeconds: number;
}

/**
 * The transcription_jobs row an accepted upload creates (jobLifecycle's NewJobRow, with the upload's
 * own types): `audioStream` is the stream measured and charged, the only one the worker decodes;
 * `reservedSeconds`, what it will be charged (chargeableSeconds), held until then; `glossary`, the
 * upload's terms, else the account's.
 */
export interface NewTranscriptionJob extends NewJobRow {
  audioFormat: AudioFormat;
  model: UploadFields["model"];
  tone: UploadFields["tone"];
  language: Language;
  speakerCount: UploadFields["speakers"];
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
  /** Resolves when the object store answers. */
  storeReachable(): Promise<void>;
  /**
   * The hand-off (audio-handoff.ts): mark() writes the marker that lets the recording outlive this
   * process; keep() takes over its folder, to store it and queue its job after the answer.
   */
  handoff: {
    mark(file: string, rec: PendingRecording): Promise<void>;
    keep(file: string, rec: PendingRecording, held?: HeldBytes): void;
  };
  jobs: {
    /**
     * Records the job and reserves its seconds in one step, only while the user's plan still has them
     * (with every other in-flight upload's reservation counted); false when it no longer does.
     */
    createReserved(row: NewTranscriptionJob): Promise<boolean>;
    /** Fails a job whose recording cannot be handed off (its minutes given back). */
    notStored(jobId: string): Promise<boolean>;
  };
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
   * Asks for what the user's upload needs besides its body (the engine's languages, the minutes left,
   * the account's glossary, whether the store answers), so a route can have it while the body arrives.
   * A failure is kept for accept() (never an unhandled rejection).
   */
  prepare(userId: string): UploadPrelude {
    const p = this.ports;
    const prelude: UploadPrelude = {
      speech: p.speechStatus(),
      accountGlossary: p.accountGlossary(userId),
      storeReachable: p.storeReachable(),
    };
    for (const promise of Object.values(prelude)) promise.catch(() => undefined);
    return prelude;
  }

  /**
   * The stream to transcribe and its length: probed (one of this gateway's decode slots), the minutes
   * left must cover the probed length before any decoding, then the stream must really decode (read
   * no further than the minutes left) and the decoded length must be covered too. An uncompressed
   * WAV is measured from its header; its minutes are settled by the row's quota guard alone (the
   * minutes left are read only for a recording that is probed, or to word a refusal).
   */
  private async check(
    userId: string,
    file: UploadedFile,
    format: AudioFormat,
    overQuota: (seconds: number, left: number) => AppError,
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
      if (pcm.presentSeconds < 0.5) throw damaged();
      return { duration: pcm.presentSeconds, stream: 0 };
    }
    const releaseDecode = await p.decodeSlot();
    let decoded: number;
    let stream: number;
    let left: number;
    try {
      const probe = await p.probe(file.path, format);
      if (!probe) throw damaged();
      left = await p.secondsLeft(userId);
      if (left < chargeableSeconds(probe.durationSeconds)) throw overQuota(probe.durationSeconds, left);
      stream = probe.stream;
      decoded = await p.decodedSeconds(file.path, format, stream, left + 1);
      if (decoded < 0.5 || decoded < probe.durationSeconds * 0.5) {
        throw damaged();
      }
    } finally {
      releaseDecode();
    }
    if (left < chargeableSeconds(decoded)) throw overQuota(decoded, left);
    return { duration: decoded, stream };
  }

  /**
   * Checks the recording and accepts its transcription: (1) a file that is there and not empty, in a
   * language the engine hears, with the store answering; (2) audio recognised from its bytes, its
   * audio stream chosen and its length read (ffprobe, with the sniffed format's demuxer; an
   * uncompressed WAV from its header); (3) the minutes left (in-flight uploads counted) must cover it,
   * settled before any decoding; (4) that stream must really decode, read no further than the minutes
   * left (a header may claim less than there is). It is then recorded with its seconds reserved
   * (atomically, so parallel uploads cannot overspend) and its audio pending, and handed off: the
   * file's folder is taken over, the recording stored under a per-user key and the job queued after
   * the answer (audio-handoff.ts).
   */
  async accept(req: UploadRequest): Promise<AcceptedUpload> {
    const p = this.ports;
    const { userId: uid, fields, file } = req;
    if (!file) throw new AppError("FILE_MISSING", "No audio file was sent (field 'file')");
    if (file.bytes === 0) throw new AppError("FILE_EMPTY", "The audio file is empty");
    const prelude = req.prelude ?? this.prepare(uid);
    // The engine must hear the language (a start-time fact the workers publish): refuse before any decoding.
    const speech = await prelude.speech;
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
    await prelude.storeReachable.catch((err) => {
      throw new AppError("SERVICE_UNAVAILABLE", "The file store is unavailable right now; please try again", {
        cause: err,
      });
    });
    const overQuota = (seconds: number, left: number) =>
      new AppError(
        "QUOTA_EXCEEDED",
        `This recording is ${Math.ceil(seconds / 60)} min long, but only ${Math.floor(left / 60)} min are left this month`,
        { link: p.planLink(lang) },
      );
    const { duration, stream } = await this.check(uid, file, format, overQuota);
    const jobId = p.newId();
    const audioKey = audioKeyOf(uid, jobId, format);
    const glossary = fields.glossary ?? (await prelude.accountGlossary);
    const { correlationId } = req;
    const rec = { jobId, userId: uid, audioKey, contentType: mimeOf(format), bytes: file.bytes, correlationId };
    // A recording on disk is marked while its row is written (a marker whose job was never recorded
    // is cleared away); a held one is marked by the hand-off as it is written, after the answer.
    const marking = file.held ? Promise.resolve() : p.handoff.mark(file.path, rec);
    marking.catch(() => undefined);
    const created = await p.jobs.createReserved({
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
    });
    // Refused by the guard: what is left now (other uploads may have taken minutes since any earlier figure).
    if (!created) throw overQuota(duration, await p.secondsLeft(uid));
    await marking.catch(async (err) => {
      await p.jobs.notStored(jobId).catch(() => undefined);
      throw new AppError("SERVICE_UNAVAILABLE", AUDIO_NOT_STORED, { cause: err });
    });
    p.handoff.keep(file.path, rec, file.held);
    return { jobId, bytes: file.bytes, format, durationSeconds: duration };
  }
}
