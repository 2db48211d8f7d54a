import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import {
  glossaryOf,
  isSpacelessLanguage,
  type TranscriptSegment,
  transcriptionChunkJobSchema,
  whisperPrompt,
  withWords,
} from "@kikitori/shared";
import { jobLifecycle, parseJobPayload, runStep } from "@kikitori/shared/server";
import type { Job } from "bullmq";
import { cleanSegments, type Span } from "../cleanup.ts";
import { assignSpeakers } from "../diarization/merge.ts";
import type { SpeakerSpan } from "../diarization/port.ts";
import type { EngineSegment, TranscriptionEngine } from "../engines/index.ts";
import { type ChunkResult, chunkResults } from "./steps.ts";
import { chunkProgress, languageInUse, type TranscriptionDeps } from "./transcribe.ts";

export interface ChunkDeps extends Pick<TranscriptionDeps, "db" | "store" | "publish" | "logger" | "tmpDir" | "now"> {
  engine: TranscriptionEngine;
  /** Seconds of engine time per chunk, for the engine-time-per-audio-second metric. */
  observeEngine?: (engineSeconds: number, audioSeconds: number) => void;
  /** How many parts this worker transcribes side by side (its chunk concurrency), for the time left. */
  parallelParts?: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** An engine's segments (seconds from the chunk's start) placed on the recording's time line. Pure. */
export function placeSegments(segments: EngineSegment[], chunk: { startSeconds: number; endSeconds: number }) {
  const length = chunk.endSeconds - chunk.startSeconds;
  const at = (t: number) => round2(chunk.startSeconds + Math.min(Math.max(0, t), length));
  return segments.map((s): TranscriptSegment => {
    const start = at(s.start);
    // A server that gives plain text only (end 0) covers the chunk.
    const end = s.end > s.start ? at(s.end) : round2(chunk.endSeconds);
    return {
      start,
      end,
      text: s.text.trim(),
      ...(s.words ? { words: s.words.map((w) => ({ start: at(w.start), end: at(w.end), text: w.text })) } : {}),
    };
  });
}

/**
 * One chunk (QUEUES.transcriptionChunk): a resumable step (chunkResults) that fetches its WAV, runs
 * the engine in the job's audio language, drops what Whisper invents (cleanup.ts) and stores the
 * timed segments. A chunk that is already done is not transcribed again (a re-run after a crash).
 * Then every finished chunk whose predecessors are out goes out as live text, in order, and the
 * job's progress rises with the audio done.
 */
export async function processChunk(deps: ChunkDeps, job: Job): Promise<{ index: number; chars: number }> {
  const p = parseJobPayload(transcriptionChunkJobSchema, job.data);
  const chunk = await deps.db.transcriptChunk.findUnique({
    where: { jobId_index: { jobId: p.jobId, index: p.index } },
  });
  if (!chunk) return { index: p.index, chars: 0 };
  const row = await deps.db.transcriptionJob.findUnique({
    where: { id: p.jobId },
    select: {
      audioLanguage: true,
      detectedLanguage: true,
      model: true,
      interviewer: true,
      interviewee: true,
      glossary: true,
      status: true,
      speakerSpans: true,
    },
  });
  if (!row || row.status === "failed") return { index: p.index, chars: 0 };
  const { text } = await runStep(chunkResults(deps.db, p.jobId), p.index, () => transcribeChunk(deps, chunk, row));
  await publishReadyChunks(deps, p);
  return { index: p.index, chars: text.length };
}

/** Transcribes one chunk's audio into its timed segments, with their words and speakers. */
async function transcribeChunk(
  deps: ChunkDeps,
  chunk: { objectKey: string; startSeconds: number; endSeconds: number; speech: unknown },
  row: {
    audioLanguage: string;
    detectedLanguage: string | null;
    model: string;
    interviewer: string;
    interviewee: string;
    glossary: unknown;
    speakerSpans: unknown;
  },
): Promise<ChunkResult> {
  const dir = await mkdtemp(path.join(deps.tmpDir, "kikitori-chunk-"));
  try {
    const wav = path.join(dir, "chunk.wav");
    await pipeline(await deps.store.get(chunk.objectKey), createWriteStream(wav));
    const t0 = process.hrtime.bigint();
    const language = languageInUse(row);
    const result = await deps.engine.transcribe(wav, {
      language,
      fileType: row.model,
      // Whisper's initial prompt (names, then the glossary within its budget); the openai engine's
      // hint too. Pocketsphinx takes no prompt or hotwords: the correction step applies the glossary.
      prompt: whisperPrompt([row.interviewer, row.interviewee].filter(Boolean), glossaryOf(row.glossary)),
    });
    const engineSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    deps.observeEngine?.(engineSeconds, chunk.endSeconds - chunk.startSeconds);
    const speech = Array.isArray(chunk.speech) ? (chunk.speech as unknown as Span[]) : null;
    const spans = Array.isArray(row.speakerSpans) ? (row.speakerSpans as unknown as SpeakerSpan[]) : [];
    // Every segment carries its words: the engine's times, else its time spread over them.
    const wordLanguage = result.language ?? (language === "auto" ? "en" : language);
    const segments = assignSpeakers(cleanSegments(placeSegments(result.segments, chunk), speech), spans).map((s) =>
      withWords(s, wordLanguage),
    );
    const text = segments.map((s) => s.text).join(isSpacelessLanguage(result.language ?? language) ? "" : " ");
    return { text, segments, engineSeconds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Sends the live text of every finished chunk whose predecessors were all sent, in chunk order, and
 * marks it sent (published_at); raises the job's progress with the audio done. The job row is locked
 * and the messages go out inside the transaction, so two workers finishing neighbouring chunks at
 * once cannot send them out of order. A worker killed between sending and committing leaves the mark
 * unset and the chunk goes out again, identical: at least once, always in order.
 */
async function publishReadyChunks(
  deps: ChunkDeps,
  p: { jobId: string; userId: string; correlationId?: string },
): Promise<void> {
  const now = (deps.now ?? (() => new Date()))();
  await deps.db.$transaction(
    async (tx) => {
      const [job] = await tx.$queryRawUnsafe<
        Array<{
          status: string;
          duration: number;
          started: Date | null;
          audio_language: string;
          detected_language: string | null;
        }>
      >(
        `SELECT "status", "duration_seconds" AS duration, "transcription_started_at" AS started,
                "audio_language", "detected_language"
         FROM "transcription_jobs" WHERE "id" = $1::uuid FOR UPDATE`,
        p.jobId,
      );
      if (job?.status !== "transcribing") return;
      const chunks = await tx.transcriptChunk.findMany({
        where: { jobId: p.jobId },
        orderBy: { index: "asc" },
        select: {
          index: true,
          startSeconds: true,
          endSeconds: true,
          segments: true,
          doneAt: true,
          publishedAt: true,
          engineSeconds: true,
        },
      });
      const work = (c: (typeof chunks)[number]) => c.endSeconds - c.startSeconds;
      const total = chunks.reduce((t, c) => t + work(c), 0);
      const done = chunks.filter((c) => c.doneAt).reduce((t, c) => t + work(c), 0);
      const ready: typeof chunks = [];
      for (const c of chunks) {
        if (!c.doneAt) break;
        if (!c.publishedAt) ready.push(c);
      }
      const eta = partsEta(chunks, now, total, done, deps.parallelParts);
      const language = job.detected_language ?? (job.audio_language === "auto" ? null : job.audio_language);
      const lastIndex = chunks.length - 1;
      const doneCount = chunks.filter((c) => c.doneAt).length;
      if (ready.length > 0) {
        await tx.transcriptChunk.updateMany({
          where: { jobId: p.jobId, index: { in: ready.map((c) => c.index) } },
          data: { publishedAt: now },
        });
        for (const c of ready) {
          await deps.publish({
            userId: p.userId,
            correlationId: p.correlationId,
            event: {
              type: "segments",
              jobId: p.jobId,
              chunkIndex: c.index,
              segments: Array.isArray(c.segments) ? (c.segments as TranscriptSegment[]) : [],
              audioSecondsDone: round2(c.index === lastIndex ? job.duration : c.endSeconds),
              audioSecondsTotal: round2(job.duration),
              etaSeconds: eta,
              language,
            },
          });
        }
      }
      // Progress only rises, whatever order the chunks finish in.
      const progress = chunkProgress(done, total);
      if (await jobLifecycle.raiseTranscriptionProgress(tx, p.jobId, progress)) {
        await deps.publish({
          userId: p.userId,
          correlationId: p.correlationId,
          event: {
            jobId: p.jobId,
            status: "Transcription in progress",
            transcriptionProgress: progress,
            stage: "parts",
            part: Math.min(doneCount + 1, chunks.length),
            parts: chunks.length,
          },
        });
      }
    },
    { timeout: 15_000 },
  );
}

/**
 * Seconds left transcribing, from the rate measured on the parts done so far (the splitting and the
 * speaker analysis before the first part are not part of it). One part at a time: the wall time since
 * the first part began (its finish time less its engine time) per second of audio done, times the audio
 * left. With `slots` parts side by side: each part left takes the engine time per audio second measured
 * on the parts done, the parts are laid out in order on the slots from when the first began (so a part
 * already running is counted as under way, not as not started), and the estimate is when the last one
 * ends, never under a second for a part not done. Null before any part is done. Pure.
 */
export function partsEta(
  chunks: ReadonlyArray<{
    startSeconds: number;
    endSeconds: number;
    doneAt: Date | null;
    engineSeconds: number | null;
  }>,
  now: Date,
  total: number,
  done: number,
  slots = 1,
): number | null {
  if (done <= 0 || total <= done) return done > 0 ? 0 : null;
  let began = Number.POSITIVE_INFINITY;
  let engine = 0;
  let audio = 0;
  for (const c of chunks) {
    if (!c.doneAt) continue;
    began = Math.min(began, c.doneAt.getTime() - (c.engineSeconds ?? 0) * 1000);
    engine += c.engineSeconds ?? 0;
    audio += c.endSeconds - c.startSeconds;
  }
  const elapsed = (now.getTime() - began) / 1000;
  if (!Number.isFinite(elapsed) || elapsed <= 0) return null;
  const n = Number.isFinite(slots) ? Math.max(1, Math.floor(slots)) : 1;
  if (n === 1 || engine <= 0 || audio <= 0) return Math.round((elapsed * (total - done)) / done);
  const perSecond = engine / audio;
  const nowMs = now.getTime();
  const free: number[] = Array.from({ length: n }, () => began);
  let end = nowMs;
  for (const c of chunks) {
    free.sort((x, y) => x - y);
    if (c.doneAt) {
      free[0] = Math.max(free[0], c.doneAt.getTime());
      continue;
    }
    const finish = Math.max(free[0] + perSecond * (c.endSeconds - c.startSeconds) * 1000, nowMs + 1000);
    free[0] = finish;
    end = Math.max(end, finish);
  }
  return Math.round((end - nowMs) / 1000);
}
