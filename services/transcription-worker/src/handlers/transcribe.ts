import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import {
  AppError,
  AUDIO_FORMATS,
  type JobNotice,
  type ProgressEnvelope,
  partsProgress,
  STAGE_PROGRESS,
  type StepOutcome,
  segmentsText,
  type TranscriptionChunkJob,
  type TranscriptionJob,
  type TranscriptionStage,
  type TranscriptSegment,
  transcriptionChunkJobSchema,
  transcriptionJobSchema,
} from "@kikitori/shared";
import type { Db, Prisma } from "@kikitori/shared/db";
import {
  chargeTranscription,
  type JobLike,
  jobLifecycle,
  type Logger,
  markJobFailed,
  type ObjectStore,
  parseJobPayload,
  runStepOnce,
} from "@kikitori/shared/server";
import { type Job, WaitingChildrenError } from "bullmq";
import { cutWav, decodeToWav } from "../audio.ts";
import { ClassicDiarizationEngine } from "../diarization/classic.ts";
import type { DiarizationEngine, SpeakerSpan } from "../diarization/index.ts";
import type { TranscriptionEngine } from "../engines/index.ts";
import { detectSpeech, planSpeechChunks, type SpeechSpan } from "../vad.ts";
import { CHUNK_PLAN_STEP, type ChunkPlan, chunkPlans, type Diarized } from "./steps.ts";

/** Everything the transcription pipeline touches, injected so tests can pass their own. */
export interface TranscriptionDeps {
  db: Db;
  store: ObjectStore;
  /** Publishes one progress update for the gateways to fan out (publishProgress bound to Redis). */
  publish: (envelope: ProgressEnvelope) => Promise<unknown>;
  logger: Logger;
  /** Adds chunk jobs as children of the parent job (BullMQ flow), deduplicated by job id. */
  addChunkJobs: (parent: Job, chunks: TranscriptionChunkJob[]) => Promise<void>;
  /**
   * The speech engine: its name goes on the job, it detects the language once when asked for "auto",
   * and it says whether the job's language is routed around a model that failed to load.
   */
  engine: Pick<TranscriptionEngine, "name" | "detectLanguage" | "routedAround">;
  /** Tells the voices apart before the chunks are transcribed (null: off, one speaker). */
  diarization?: Pick<DiarizationEngine, "name" | "diarize" | "notice"> | null;
  /** Used for a job when `diarization` fails on it (default: the classic engine). */
  fallbackDiarization?: Pick<DiarizationEngine, "name" | "diarize">;
  chunkSeconds: number;
  tmpDir: string;
  now?: () => Date;
}

export const chunkKey = (userId: string, jobId: string, index: number) =>
  `users/${userId}/jobs/${jobId}/chunk-${index}.wav`;
export const chunkJobId = (jobId: string, index: number) => `${jobId}-c${index}`;

/** Transcription progress while chunks finish: shared `partsProgress` (the clients show the same). */
export const chunkProgress = partsProgress;

/**
 * Tells the job's owner which stage the transcription is at (and raises the stored progress to the
 * stage's start, never lowering it), so the screen names what is happening from the first second.
 */
async function publishStage(
  deps: Pick<TranscriptionDeps, "db" | "publish">,
  p: { jobId: string; userId: string; correlationId?: string },
  stage: TranscriptionStage,
  parts?: number,
): Promise<void> {
  const progress = STAGE_PROGRESS[stage];
  await jobLifecycle.raiseTranscriptionProgress(deps.db, p.jobId, progress);
  await deps.publish({
    userId: p.userId,
    correlationId: p.correlationId,
    event: {
      jobId: p.jobId,
      status: "Transcription in progress",
      transcriptionProgress: progress,
      stage,
      ...(parts ? { part: 1, parts } : {}),
    },
  });
}

/** The audio language in use: the detected one, else the one asked for ("auto" when neither is known). */
export const languageInUse = (row: { audioLanguage: string; detectedLanguage: string | null }) =>
  row.detectedLanguage ?? row.audioLanguage;

/** A job's transcript from its chunks' segments, in order (no space between chunks of ja, zh, th, …). */
export function joinSegments(
  chunks: Array<{ segments: unknown }>,
  language: string,
): {
  segments: TranscriptSegment[];
  text: string;
} {
  const segments = chunks.flatMap((c) => (Array.isArray(c.segments) ? (c.segments as TranscriptSegment[]) : []));
  return { segments, text: segmentsText(segments, language) };
}

/**
 * The parent job of one recording (QUEUES.transcription), run in steps and safe to re-run at any
 * point: (1) decode and cut the audio at silences into ~30 s chunks, stored in the object store and
 * recorded in Postgres (the chunk plan: a resumable step, made once); (2) add one child job per
 * unfinished chunk and wait for them (several workers share the file; each chunk is a resumable
 * step too); (3) when all chunks are done, join the text, charge the audio's seconds once (keyed on
 * the job id), store the transcript and hand over to correction.
 */
export async function processTranscription(deps: TranscriptionDeps, job: Job, token?: string): Promise<StepOutcome> {
  const p: TranscriptionJob = parseJobPayload(transcriptionJobSchema, job.data);
  const now = deps.now ?? (() => new Date());
  const log = deps.logger.child({ jobId: p.jobId, correlationId: p.correlationId });
  const row = await deps.db.transcriptionJob.findUnique({ where: { id: p.jobId } });
  const skipped = (reason: string): StepOutcome => ({ step: "skipped", jobId: p.jobId, reason });
  const transcribed: StepOutcome = {
    step: "transcribed",
    jobId: p.jobId,
    userId: p.userId,
    correlationId: p.correlationId,
  };
  if (!row) return skipped("job no longer exists (account deleted?)");
  if (row.transcription !== null && row.transcriptionTime !== null) {
    // Already transcribed (a re-run after a crash): hand on again unless it is complete.
    return row.status === "completed" ? skipped("job already complete") : transcribed;
  }
  if (row.status === "failed") return skipped("job already failed");

  const started = row.transcriptionStartedAt ?? now();
  if (
    row.status === "queued" &&
    (await jobLifecycle.startTranscription(deps.db, p.jobId, {
      startedAt: started,
      engine: deps.engine.name,
      progress: 5,
    }))
  ) {
    await deps.publish({
      userId: p.userId,
      correlationId: p.correlationId,
      event: { jobId: p.jobId, status: "Transcription started", transcriptionProgress: 5 },
    });
  }

  const plan = await runStepOnce(chunkPlans(deps.db, p.jobId), CHUNK_PLAN_STEP, () => planChunks(deps, p, row, log));
  if (plan.ran) await publishStage(deps, p, "parts", plan.result.chunks.length);
  let chunks = await deps.db.transcriptChunk.findMany({ where: { jobId: p.jobId }, orderBy: { index: "asc" } });

  const pending = chunks.filter((c) => !c.doneAt);
  if (pending.length > 0) {
    await deps.addChunkJobs(
      job,
      pending.map((c) => ({ jobId: p.jobId, userId: p.userId, index: c.index, correlationId: p.correlationId })),
    );
    if (token && (await job.moveToWaitingChildren(token))) throw new WaitingChildrenError();
    // No pending children in BullMQ (they all finished meanwhile): read the chunks again.
    chunks = await deps.db.transcriptChunk.findMany({ where: { jobId: p.jobId }, orderBy: { index: "asc" } });
    if (chunks.some((c) => !c.doneAt)) {
      throw new AppError("TRANSCRIPTION_FAILED", "some chunks are not transcribed yet; retrying", { retryable: true });
    }
  }

  // All chunks done: the transcript, the time taken (fixed once), usage charged once.
  const langRow = await deps.db.transcriptionJob.findUniqueOrThrow({
    where: { id: p.jobId },
    select: { audioLanguage: true, detectedLanguage: true },
  });
  const { segments, text: transcription } = joinSegments(chunks, languageInUse(langRow));
  const doneAt = row.transcriptionDoneAt ?? now();
  const transcriptionTime = Math.round(((doneAt.getTime() - started.getTime()) / 1000) * 100) / 100;
  await chargeTranscription(deps.db, p.userId, p.jobId, row.durationSeconds);
  const handedOn = await jobLifecycle.transcribed(deps.db, p.jobId, {
    transcription,
    segments: segments as unknown as Prisma.InputJsonValue,
    transcriptionTime,
    doneAt,
  });
  // Failed or deleted while its chunks ran: it stays as it is (a stale run never moves it back).
  if (!handedOn) return skipped("job no longer transcribing");
  await deps.publish({
    userId: p.userId,
    correlationId: p.correlationId,
    event: {
      jobId: p.jobId,
      status: "Transcription complete",
      transcriptionProgress: 100,
      transcription,
      transcriptionTime,
    },
  });
  await Promise.all(chunks.map((c) => deps.store.remove(c.objectKey).catch(() => {})));
  log.info({ chunks: chunks.length, transcriptionTime, chars: transcription.length }, "transcription complete");
  return transcribed;
}

/**
 * The chunk plan, a resumable step (chunkPlans): decodes the recording, finds its speech (Silero VAD)
 * and cuts it into chunks of at most `chunkSeconds` at speech boundaries, put in the object store,
 * leaving long silences out (never transcribed, so Whisper has nothing to invent text over). With
 * "auto", the language is detected once here, on the chunk with the most speech (a short clip is
 * where Whisper guesses wrong), and every chunk then uses it.
 */
async function planChunks(
  deps: TranscriptionDeps,
  p: TranscriptionJob,
  row: {
    audioKey: string;
    audioFormat: string;
    audioStream: number;
    durationSeconds: number;
    audioLanguage: string;
    detectedLanguage: string | null;
    speakerCount: number | null;
  },
  log: Logger,
): Promise<ChunkPlan> {
  const format = AUDIO_FORMATS.find((f) => f === row.audioFormat);
  if (!format) throw new AppError("UNSUPPORTED_AUDIO", `unknown stored audio format "${row.audioFormat}"`);
  const dir = await mkdtemp(path.join(deps.tmpDir, "kikitori-tx-"));
  try {
    await publishStage(deps, p, "speech");
    const src = path.join(dir, "source");
    await pipeline(await deps.store.get(row.audioKey), createWriteStream(src));
    const wav = path.join(dir, "audio.wav");
    const { duration } = await decodeToWav(src, wav, {
      format,
      stream: row.audioStream,
      maxSeconds: row.durationSeconds,
    });
    const speech = await detectSpeech(wav);
    const cuts = planSpeechChunks(speech, duration, { target: deps.chunkSeconds });
    if (cuts.length === 0) {
      throw new AppError("NO_SPEECH", "No speech was found in the recording", { retryable: false });
    }
    const chunks: ChunkPlan["chunks"] = [];
    const files: string[] = [];
    for (const [index, c] of cuts.entries()) {
      const file = path.join(dir, `chunk-${index}.wav`);
      await cutWav(wav, c.start, c.end, file);
      files.push(file);
      const key = chunkKey(p.userId, p.jobId, index);
      const { size } = await stat(file);
      await deps.store.put(key, createReadStream(file), size, "audio/wav");
      chunks.push({
        index,
        startSeconds: c.start,
        endSeconds: c.end,
        objectKey: key,
        speech: c.speech.map(({ start, end }) => ({ start, end })),
      });
    }
    // Who speaks when, on the whole recording (speakers are told apart across chunks), before any
    // chunk is transcribed: each chunk's segments then get their speakers as they come.
    let diarized: Diarized | null = null;
    const notices: JobNotice[] = [];
    if (deps.diarization) {
      await publishStage(deps, p, "voices");
      const d = await diarizeOrFallBack(deps, deps.diarization, wav, speech, row.speakerCount, log);
      diarized = { spans: d.spans, engine: d.engine };
      notices.push(...d.notices);
    }
    let detected = row.detectedLanguage;
    if (row.audioLanguage === "auto" && !detected && deps.engine.detectLanguage) {
      const speechOf = (c: (typeof cuts)[number]) => c.speech.reduce((t, s) => t + (s.end - s.start), 0);
      const richest = cuts.reduce((best, c, i) => (speechOf(c) > speechOf(cuts[best]) ? i : best), 0);
      detected = await deps.engine.detectLanguage(files[richest]);
      log.info({ detected, chunk: richest }, "audio language detected");
    }
    const language = detected ?? row.audioLanguage;
    if (deps.engine.routedAround?.(language)) {
      log.warn({ language, engine: deps.engine.name }, "the best speech model for this language failed to load here");
      notices.push("speech_fallback");
    }
    const speechSeconds = speech.reduce((t, s) => t + (s.end - s.start), 0);
    log.info({ chunks: chunks.length, duration, speechSeconds: Math.round(speechSeconds) }, "audio split");
    return { chunks, detectedLanguage: detected, diarized, notices };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Who speaks when, by `engine`; when an optional engine (not the classic one) fails on this
 * recording, the job goes on with the classic engine and the notice `diarization_fallback` (the page
 * says so) rather than failing. An abort is passed on, never covered by a fallback.
 */
async function diarizeOrFallBack(
  deps: Pick<TranscriptionDeps, "fallbackDiarization">,
  engine: Pick<DiarizationEngine, "name" | "diarize" | "notice">,
  wav: string,
  speech: SpeechSpan[],
  speakerCount: number | null,
  log: Logger,
): Promise<Diarized & { notices: JobNotice[] }> {
  const opts = { speakers: speakerCount ?? undefined };
  let used = engine;
  let spans: SpeakerSpan[];
  const notices: JobNotice[] = engine.notice ? [engine.notice] : [];
  try {
    spans = await engine.diarize(wav, speech, opts);
  } catch (err) {
    const fallback = deps.fallbackDiarization ?? new ClassicDiarizationEngine();
    if ((err as Error).name === "AbortError" || engine.name === fallback.name) throw err;
    log.warn(
      { engine: engine.name, err: (err as Error).message, fallback: fallback.name },
      "speaker diarization failed on this recording; using the classic engine for this job",
    );
    used = fallback;
    spans = await fallback.diarize(wav, speech, opts);
    if (!notices.includes("diarization_fallback")) notices.push("diarization_fallback");
  }
  log.info(
    { engine: used.name, speakers: new Set(spans.map((s) => s.speaker)).size, turns: spans.length },
    "speakers told apart",
  );
  return { spans, engine: used.name, notices };
}

/** Marks the job failed (keeping any transcript) and tells its owner. Used by both queues. */
export async function reportTranscriptionFailure(
  deps: Pick<TranscriptionDeps, "publish" | "logger" | "db">,
  job: JobLike<unknown>,
  err: unknown,
): Promise<void> {
  const parsed = transcriptionJobSchema.safeParse(job.data);
  const chunk = transcriptionChunkJobSchema.safeParse(job.data);
  const ids = parsed.success ? parsed.data : chunk.success ? chunk.data : null;
  if (!ids) {
    deps.logger.warn({ jobId: job.id }, "failed job has no valid payload; nobody to notify");
    return;
  }
  await markJobFailed(deps, ids, err, {
    name: "transcription",
    internalCode: "TRANSCRIPTION_FAILED",
    from: ["queued", "transcribing"],
  });
}
