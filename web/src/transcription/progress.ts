/**
 * The transcription screen's job state, as a pure reducer.
 *
 * UI phases and the value of the one progress bar:
 * 1. uploading            0 → 5, with the bytes sent (the browser's upload progress)
 * 2. transcribing         the server's transcriptionProgress, shown between 5 and 99, at a named
 *                         stage (finding speech, telling voices apart, transcribing part n of m)
 * 3. startingCorrection   100 (transcription done, correction at 0)
 * 4. correcting           the server's correctionProgress, shown between 1 and 99
 * 5. complete             100
 * plus `failed` (processing ended with an error, the bar keeps its last value) and `idle`.
 *
 * Updates may arrive twice or out of order (socket pushes and snapshot reads race after a reconnect),
 * so the phase never moves backwards and the value never drops within a phase.
 *
 * While transcribing, `segments` events bring the live text chunk by chunk, with how far the
 * transcription is in audio seconds: the bar then follows the audio (the status percentage stays the
 * floor). A chunk is taken once, and a segment already on screen (from a snapshot) is not added again.
 */
import {
  AUTO_LANGUAGE,
  charCount,
  type JobSpeaker,
  type JobUpdate,
  type ProgressEvent,
  type SegmentsEvent,
  type TranscriptionSnapshot,
  type TranscriptionStage,
  type TranscriptSegment,
} from "@kikitori/shared";
import { audioPercent } from "../job/time.ts";

export type Phase = "idle" | "uploading" | "transcribing" | "startingCorrection" | "correcting" | "complete" | "failed";

/** The bar's value when the upload is fully sent (the rest is the server's work). */
export const UPLOAD_CAP = 5;
/** Most events buffered while the upload response (and so the job id) is still outstanding. */
const PENDING_MAX = 50;

export interface JobError {
  /** API error code (errors.<code> in the translations), or a client code (HTTP_ERROR, NETWORK_ERROR…). */
  code: string;
  message?: string;
  /** HTTP status of a failed upload. */
  status?: number;
  link?: string;
  /** Which stage failed (transcription, correction), when the server says. */
  stage?: string | null;
}

/** The named stage of a running transcription, from the server's progress events. */
export interface StageProgress {
  name: TranscriptionStage;
  /** With "parts": the part being transcribed (1-based) of how many. */
  part: number | null;
  parts: number | null;
}

/** How much of the file is sent, from the browser's upload progress. */
export interface UploadProgress {
  sent: number;
  total: number;
  /** True while a resumable upload retries after a lost connection. */
  reconnecting?: boolean;
}

/** How far the transcription is in the recording, from the segments events. */
export interface AudioProgress {
  /** Seconds of audio transcribed (never goes backwards). */
  done: number;
  /** Length of the recording in seconds. */
  total: number;
  /** Estimated seconds left; null when the server has no estimate yet. */
  eta: number | null;
}

export interface TranscriptionState {
  jobId: string | null;
  phase: Phase;
  /** True from submit until correction completes or the job or upload fails: the upload lock. */
  processing: boolean;
  /** The progress bar's value, 0–100. */
  progress: number;
  transcription: string | null;
  transcriptionTime: number | null;
  rewrittenText: string | null;
  correctionTime: number | null;
  characterCount: number | null;
  audioFileUrl: string | null;
  audioExpired: boolean;
  error: JobError | null;
  /** The timed transcript so far, ordered by start (live while transcribing, complete afterwards). */
  segments: TranscriptSegment[];
  /** Chunk indexes whose segments were taken: a chunk sent twice is ignored. */
  chunksSeen: number[];
  audio: AudioProgress | null;
  /** The transcription's named stage, once the server says (null before, and after transcribing). */
  stage: StageProgress | null;
  /** Bytes of the file sent while uploading. */
  upload: UploadProgress | null;
  /** Audio language asked for at upload ("auto" or a Whisper code); null when not known. */
  audioLanguage: string | null;
  /** Language in use: detected (with "auto") or reported by the worker; null until known. */
  spokenLanguage: string | null;
  /** Speech engine and model ("whisper:base", "pocketsphinx"), once the snapshot says. */
  engine: string | null;
  /** The speakers heard, named (once the interview is written; renamable). */
  speakers: JobSpeaker[];
  /** Diarization engine that told the voices apart ("classic", "sherpa:…"), once the snapshot says. */
  diarizationEngine: string | null;
  /** Updates seen during the upload, before the job id was known; replayed when it is. */
  pending: JobUpdate[];
}

export type TranscriptionAction =
  | { type: "reset" }
  | { type: "uploadStart"; audioLanguage?: string }
  | { type: "uploadProgress"; sent: number; total: number; reconnecting?: boolean }
  | { type: "uploadAccepted"; jobId: string }
  | { type: "uploadFailed"; error: JobError }
  | { type: "event"; event: ProgressEvent }
  | { type: "segments"; event: SegmentsEvent }
  | { type: "snapshot"; snapshot: TranscriptionSnapshot }
  /** Speakers renamed: the server's new names and interview text replace the shown ones. */
  | { type: "speakersRenamed"; snapshot: TranscriptionSnapshot }
  | { type: "audioExpired" };

export const initialTranscriptionState: TranscriptionState = {
  jobId: null,
  phase: "idle",
  processing: false,
  progress: 0,
  transcription: null,
  transcriptionTime: null,
  rewrittenText: null,
  correctionTime: null,
  characterCount: null,
  audioFileUrl: null,
  audioExpired: false,
  error: null,
  segments: [],
  chunksSeen: [],
  audio: null,
  stage: null,
  upload: null,
  audioLanguage: null,
  spokenLanguage: null,
  engine: null,
  speakers: [],
  diarizationEngine: null,
  pending: [],
};

const RANK: Record<Phase, number> = {
  idle: 0,
  uploading: 1,
  transcribing: 2,
  startingCorrection: 3,
  correcting: 4,
  complete: 5,
  failed: 5,
};

/** Whether `phase` is a finished job (no more updates expected). */
export function isTerminal(phase: Phase): boolean {
  return phase === "complete" || phase === "failed";
}

function clamp(v: number, min: number, max: number): number {
  if (!Number.isFinite(v)) return min;
  return Math.min(max, Math.max(min, v));
}

/** Phase 2's bar value: the server's transcriptionProgress, kept between 5 and under 100. */
export function transcribingValue(transcriptionProgress: number): number {
  return clamp(transcriptionProgress, UPLOAD_CAP, 99);
}

/** Phase 4's bar value: the server's correctionProgress, kept between 1 and 99. */
export function correctingValue(correctionProgress: number): number {
  return clamp(correctionProgress, 1, 99);
}

/** Phase and bar value for a correction progress: 0 is "starting correction" (bar 100), 1–99 "correcting". */
export function correctionPhase(correctionProgress: number): { phase: Phase; progress: number } {
  return correctionProgress >= 1
    ? { phase: "correcting", progress: correctingValue(correctionProgress) }
    : { phase: "startingCorrection", progress: 100 };
}

/** Characters as the user sees them (code points, so an emoji counts once). */
export function countCharacters(text: string): number {
  return charCount(text);
}

/**
 * How a job's progress bar reads: neutral (the accent colour) while it runs, the success colour once
 * done, the error colour only when it failed. Green/yellow/red thresholds are for usage
 * bars (how much of a quota is spent), not for progress, where a red 100 % would read as a failure.
 */
export type BarTone = "running" | "done" | "failed";
export function barTone(phase: Phase): BarTone {
  if (phase === "failed") return "failed";
  if (phase === "complete") return "done";
  return "running";
}

/** Moves to a later phase (or further within the same phase); never backwards. */
function advance(state: TranscriptionState, phase: Phase, progress: number): TranscriptionState {
  if (!state.processing) return state;
  const cur = RANK[state.phase];
  const next = RANK[phase];
  if (next < cur) return state;
  if (next === cur) {
    if (phase !== state.phase) return state;
    return progress > state.progress ? { ...state, progress } : state;
  }
  return { ...state, phase, progress };
}

function applyEvent(state: TranscriptionState, event: ProgressEvent): TranscriptionState {
  switch (event.status) {
    case "File uploaded":
      return state.audioFileUrl === event.audioFileUrl ? state : { ...state, audioFileUrl: event.audioFileUrl };
    case "Transcription started":
      return advance(state, "transcribing", transcribingValue(event.transcriptionProgress));
    case "Transcription in progress": {
      const next = advance(state, "transcribing", transcribingValue(event.transcriptionProgress));
      return next.phase === "transcribing" ? withStage(next, event) : next;
    }
    case "Transcription complete": {
      const withText = { ...state, transcription: event.transcription, transcriptionTime: event.transcriptionTime };
      return advance(withText, "startingCorrection", 100);
    }
    case "Correction started":
    case "Correction in progress": {
      const { phase, progress } = correctionPhase(event.correctionProgress);
      return advance(state, phase, progress);
    }
    case "Correction complete": {
      if (state.phase === "failed") return state;
      return {
        ...state,
        rewrittenText: event.rewrittenText,
        correctionTime: event.correctionTime,
        characterCount: state.characterCount ?? countCharacters(event.rewrittenText),
        phase: "complete",
        progress: 100,
        processing: false,
        error: null,
      };
    }
    case "Failed": {
      if (state.phase === "complete" || state.phase === "failed") return state;
      return {
        ...state,
        phase: "failed",
        processing: false,
        error: { code: event.error.code, message: event.error.message },
      };
    }
    default:
      return state;
  }
}

const STAGE_RANK: Record<TranscriptionStage, number> = { speech: 0, voices: 1, parts: 2 };

/** The stage an event names, unless the screen is already at a later one (events may come late). */
function withStage(
  state: TranscriptionState,
  event: { stage?: TranscriptionStage; part?: number; parts?: number },
): TranscriptionState {
  if (!event.stage) return state;
  const cur = state.stage;
  if (cur && STAGE_RANK[event.stage] < STAGE_RANK[cur.name]) return state;
  const part = event.part ?? null;
  if (cur && cur.name === event.stage && (cur.part ?? 0) >= (part ?? 0)) return state;
  return { ...state, stage: { name: event.stage, part, parts: event.parts ?? cur?.parts ?? null } };
}

/** Identity of a segment: the same start and text is the same piece of the transcript. */
const segmentKey = (s: TranscriptSegment) => `${Math.round(s.start * 100)}|${s.text}`;

const byStart = (a: TranscriptSegment, b: TranscriptSegment) => a.start - b.start;

/** `segments` plus those of `more` not already in it, ordered by start (stable for equal starts). */
export function mergeSegments(segments: TranscriptSegment[], more: readonly TranscriptSegment[]): TranscriptSegment[] {
  const known = new Set(segments.map(segmentKey));
  const added = more.filter((s) => {
    const key = segmentKey(s);
    if (known.has(key)) return false;
    known.add(key);
    return true;
  });
  if (added.length === 0) return segments;
  return [...segments, ...added].sort(byStart);
}

/**
 * A snapshot's segments replace the ones on screen (they are the truth after a reconnect); live
 * segments that start after the snapshot's last one are kept (the snapshot was read before them).
 */
function snapshotSegments(current: TranscriptSegment[], fromSnapshot: TranscriptSegment[]): TranscriptSegment[] {
  const last = fromSnapshot.at(-1);
  const newer = last ? current.filter((s) => s.start > last.start) : current;
  return mergeSegments([...fromSnapshot].sort(byStart), newer);
}

/** Audio progress from a snapshot: its length and the end of its last segment (it carries no counter). */
function audioFromSnapshot(s: TranscriptionSnapshot, prev: AudioProgress | null): AudioProgress | null {
  const total = s.durationSeconds > 0 ? s.durationSeconds : (prev?.total ?? 0);
  const lastEnd = s.segments.reduce((max, seg) => Math.max(max, seg.end), 0);
  const done = Math.min(total, Math.max(prev?.done ?? 0, lastEnd));
  if (total <= 0 || (done <= 0 && !prev)) return prev;
  return { done, total, eta: prev?.eta ?? null };
}

function applySegments(state: TranscriptionState, event: SegmentsEvent): TranscriptionState {
  if (state.chunksSeen.includes(event.chunkIndex)) return state;
  const prev = state.audio;
  const total = event.audioSecondsTotal > 0 ? event.audioSecondsTotal : (prev?.total ?? 0);
  const behind = prev !== null && event.audioSecondsDone < prev.done;
  const audio: AudioProgress | null =
    total > 0
      ? {
          done: Math.min(total, Math.max(prev?.done ?? 0, event.audioSecondsDone)),
          total,
          eta: behind ? prev.eta : event.etaSeconds,
        }
      : prev;
  const next: TranscriptionState = {
    ...state,
    segments: mergeSegments(state.segments, event.segments),
    chunksSeen: [...state.chunksSeen, event.chunkIndex],
    audio,
    spokenLanguage: event.language ?? state.spokenLanguage,
  };
  const pct = audio ? audioPercent(audio.done, audio.total) : null;
  return pct === null ? next : advance(next, "transcribing", transcribingValue(pct));
}

function applyUpdate(state: TranscriptionState, update: JobUpdate): TranscriptionState {
  return isSegmentsEvent(update) ? applySegments(state, update) : applyEvent(state, update);
}

/** Whether a socket update is live text (else it is one of the eight status events). */
export function isSegmentsEvent(update: JobUpdate): update is SegmentsEvent {
  return "type" in update && update.type === "segments";
}

/** The language to show with the result: asked for, or detected (with "auto"); null until known. */
export function shownLanguage(
  state: Pick<TranscriptionState, "audioLanguage" | "spokenLanguage">,
): { code: string; detected: boolean } | null {
  if (state.audioLanguage && state.audioLanguage !== AUTO_LANGUAGE)
    return { code: state.audioLanguage, detected: false };
  if (state.spokenLanguage) return { code: state.spokenLanguage, detected: state.audioLanguage === AUTO_LANGUAGE };
  return null;
}

/** A job's state as read from GET /api/transcriptions/{jobId}. */
export function stateFromSnapshot(s: TranscriptionSnapshot): TranscriptionState {
  const base: TranscriptionState = {
    ...initialTranscriptionState,
    jobId: s.jobId,
    transcription: s.transcription,
    transcriptionTime: s.transcriptionTime,
    rewrittenText: s.rewrittenText,
    correctionTime: s.correctionTime,
    characterCount: s.status === "completed" ? s.characterCount : null,
    audioFileUrl: s.audioFileUrl || null,
    audioExpired: s.audioExpired,
    segments: [...s.segments].sort(byStart),
    audio: s.status === "transcribing" ? audioFromSnapshot(s, null) : null,
    audioLanguage: s.audioLanguage || null,
    spokenLanguage: s.detectedLanguage,
    engine: s.transcriptionEngine,
    speakers: s.speakers,
    diarizationEngine: s.diarizationEngine,
  };
  switch (s.status) {
    case "queued":
      return { ...base, phase: "transcribing", processing: true, progress: UPLOAD_CAP };
    case "transcribing":
      return { ...base, phase: "transcribing", processing: true, progress: transcribingValue(s.transcriptionProgress) };
    case "correcting":
      return { ...base, processing: true, ...correctionPhase(s.correctionProgress) };
    case "completed":
      return {
        ...base,
        phase: "complete",
        progress: 100,
      };
    case "failed":
      return {
        ...base,
        phase: "failed",
        progress: s.transcription !== null ? 100 : transcribingValue(s.transcriptionProgress),
        error: s.error ?? { code: "INTERNAL" },
      };
  }
}

/** Merges a snapshot of the job on screen: the later phase wins, known texts are kept. */
function mergeSnapshot(state: TranscriptionState, s: TranscriptionSnapshot): TranscriptionState {
  const fresh = stateFromSnapshot(s);
  const snapshotAhead =
    RANK[fresh.phase] > RANK[state.phase] ||
    (fresh.phase === state.phase && fresh.progress > state.progress) ||
    // A failure reported by the server ends an unfinished job even when the UI thought it further along.
    (fresh.phase === "failed" && state.phase !== "complete");
  const stateAhead = !snapshotAhead && state.phase !== "idle" && state.phase !== "uploading";
  const progressPart = stateAhead
    ? { phase: state.phase, progress: state.progress, processing: state.processing, error: state.error }
    : { phase: fresh.phase, progress: fresh.progress, processing: fresh.processing, error: fresh.error };
  return {
    ...state,
    ...progressPart,
    transcription: state.transcription ?? fresh.transcription,
    transcriptionTime: state.transcriptionTime ?? fresh.transcriptionTime,
    rewrittenText: state.rewrittenText ?? fresh.rewrittenText,
    correctionTime: state.correctionTime ?? fresh.correctionTime,
    characterCount: fresh.characterCount ?? state.characterCount,
    audioFileUrl: state.audioFileUrl ?? fresh.audioFileUrl,
    audioExpired: state.audioExpired || fresh.audioExpired,
    segments: snapshotSegments(state.segments, s.segments),
    audio: audioFromSnapshot(s, state.audio),
    audioLanguage: fresh.audioLanguage ?? state.audioLanguage,
    spokenLanguage: fresh.spokenLanguage ?? state.spokenLanguage,
    engine: fresh.engine ?? state.engine,
    speakers: s.speakers.length ? s.speakers : state.speakers,
    diarizationEngine: fresh.diarizationEngine ?? state.diarizationEngine,
    pending: [],
  };
}

export function transcriptionReducer(state: TranscriptionState, action: TranscriptionAction): TranscriptionState {
  switch (action.type) {
    case "reset":
      return initialTranscriptionState;
    case "uploadStart":
      return {
        ...initialTranscriptionState,
        phase: "uploading",
        processing: true,
        audioLanguage: action.audioLanguage ?? null,
      };
    case "uploadProgress": {
      if (state.phase !== "uploading" || action.total <= 0) return state;
      const sent = clamp(action.sent, 0, action.total);
      const progress = (UPLOAD_CAP * sent) / action.total;
      const reconnecting = action.reconnecting === true;
      // Bytes resent after a lost connection do not move the bar back; the reconnecting notice shows.
      if (progress < state.progress) {
        return reconnecting === (state.upload?.reconnecting === true) || !state.upload
          ? state
          : { ...state, upload: { ...state.upload, reconnecting } };
      }
      return { ...state, progress, upload: { sent, total: action.total, ...(reconnecting ? { reconnecting } : {}) } };
    }
    case "uploadAccepted": {
      if (state.phase !== "uploading") return state;
      let next: TranscriptionState = {
        ...state,
        jobId: action.jobId,
        phase: "transcribing",
        progress: UPLOAD_CAP,
        pending: [],
      };
      for (const e of state.pending) if (e.jobId === action.jobId) next = applyUpdate(next, e);
      return next;
    }
    case "uploadFailed":
      return { ...initialTranscriptionState, error: action.error };
    case "event":
    case "segments": {
      const { event } = action;
      if (state.jobId === null) {
        if (state.phase !== "uploading") return state;
        return { ...state, pending: [...state.pending, event].slice(-PENDING_MAX) };
      }
      return event.jobId === state.jobId ? applyUpdate(state, event) : state;
    }
    case "snapshot":
      if (action.snapshot.jobId !== state.jobId) {
        // Another job's snapshot (loaded from the list or restored after a reload) replaces the screen,
        // unless an upload is running.
        return state.phase === "uploading" ? state : stateFromSnapshot(action.snapshot);
      }
      return mergeSnapshot(state, action.snapshot);
    case "speakersRenamed":
      if (action.snapshot.jobId !== state.jobId) return state;
      return { ...state, rewrittenText: action.snapshot.rewrittenText, speakers: action.snapshot.speakers };
    case "audioExpired":
      return state.audioExpired ? state : { ...state, audioExpired: true };
  }
}

/** Side effects an event asks of the screen (kept out of the reducer). */
export interface EventEffects {
  /** Transcription complete: the minutes were charged, refresh the usage query. */
  refreshUsage: boolean;
  /** Job finished (either way): refresh the recent-jobs list and read the final snapshot. */
  finished: boolean;
}

export function effectsOf(event: ProgressEvent): EventEffects {
  return {
    refreshUsage: event.status === "Transcription complete",
    finished: event.status === "Correction complete" || event.status === "Failed",
  };
}
