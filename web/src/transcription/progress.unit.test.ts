import { describe, expect, it } from "@jest/globals";
import type { ProgressEvent, TranscriptionSnapshot } from "@kikitori/shared";
import {
  barColor,
  correctionPhase,
  countCharacters,
  effectsOf,
  initialTranscriptionState,
  stateFromSnapshot,
  type TranscriptionAction,
  type TranscriptionState,
  transcribingValue,
  transcriptionReducer,
} from "./progress.ts";

const JOB = "job-1";

function run(actions: TranscriptionAction[], from: TranscriptionState = initialTranscriptionState): TranscriptionState {
  return actions.reduce(transcriptionReducer, from);
}

type DistributiveInput<T> = T extends ProgressEvent ? Omit<T, "jobId"> & { jobId?: string } : never;

const ev = (e: DistributiveInput<ProgressEvent>): TranscriptionAction => ({
  type: "event",
  event: { jobId: JOB, ...e } as ProgressEvent,
});

function snapshot(over: Partial<TranscriptionSnapshot> = {}): TranscriptionSnapshot {
  return {
    jobId: JOB,
    status: "transcribing",
    transcriptionProgress: 40,
    correctionProgress: 0,
    transcription: null,
    rewrittenText: null,
    audioFileUrl: `/api/audio/${JOB}`,
    audioExpiresAt: "2030-01-01T00:00:00.000Z",
    audioExpired: false,
    transcriptionTime: null,
    correctionTime: null,
    characterCount: 0,
    durationSeconds: 61,
    originalName: "a.mp3",
    model: "meeting",
    interviewer: "",
    interviewee: "",
    tone: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    error: null,
    ...over,
  };
}

const started = run([{ type: "uploadStart" }]);
const accepted = run([{ type: "uploadAccepted", jobId: JOB }], started);

describe("phase 1: uploading", () => {
  it("starts processing at 0 with results cleared", () => {
    const dirty = { ...initialTranscriptionState, transcription: "old", error: { code: "INTERNAL" } };
    const s = transcriptionReducer(dirty, { type: "uploadStart" });
    expect(s).toMatchObject({ phase: "uploading", progress: 0, processing: true, transcription: null, error: null });
  });

  it("creeps 0.5 per tick and never above 5", () => {
    const ticks = (n: number) =>
      run(
        Array.from({ length: n }, () => ({ type: "tick" }) as const),
        started,
      ).progress;
    expect(ticks(1)).toBe(0.5);
    expect(ticks(4)).toBe(2);
    expect(ticks(10)).toBe(5);
    expect(ticks(30)).toBe(5);
  });

  it("ticks do nothing outside the upload phase", () => {
    expect(transcriptionReducer(accepted, { type: "tick" })).toBe(accepted);
    expect(transcriptionReducer(initialTranscriptionState, { type: "tick" })).toBe(initialTranscriptionState);
  });

  it("the upload response moves to transcribing at 5", () => {
    expect(accepted).toMatchObject({ jobId: JOB, phase: "transcribing", progress: 5, processing: true });
  });

  it("an upload error stops processing and resets progress to 0", () => {
    const s = run(
      [{ type: "tick" }, { type: "tick" }, { type: "uploadFailed", error: { code: "FILE_TOO_LARGE", status: 413 } }],
      started,
    );
    expect(s).toMatchObject({ phase: "idle", progress: 0, processing: false, jobId: null });
    expect(s.error).toEqual({ code: "FILE_TOO_LARGE", status: 413 });
  });

  it("events pushed before the job id is known are replayed once it is", () => {
    const s = run(
      [
        ev({ status: "File uploaded", audioFileUrl: "/api/audio/job-1" }),
        ev({ status: "Transcription started", transcriptionProgress: 12 }),
        ev({ jobId: "other", status: "Transcription in progress", transcriptionProgress: 90 }),
        { type: "uploadAccepted", jobId: JOB },
      ],
      started,
    );
    expect(s).toMatchObject({ phase: "transcribing", progress: 12, audioFileUrl: "/api/audio/job-1", pending: [] });
  });

  it("events without an upload or a job are ignored", () => {
    const a = ev({ status: "Transcription started", transcriptionProgress: 12 });
    expect(transcriptionReducer(initialTranscriptionState, a)).toBe(initialTranscriptionState);
  });
});

describe("phase 2: transcribing", () => {
  it("shows the server's progress between 5 and under 100", () => {
    expect(run([ev({ status: "Transcription started", transcriptionProgress: 0 })], accepted).progress).toBe(5);
    expect(run([ev({ status: "Transcription in progress", transcriptionProgress: 42 })], accepted).progress).toBe(42);
    expect(run([ev({ status: "Transcription in progress", transcriptionProgress: 100 })], accepted)).toMatchObject({
      phase: "transcribing",
      progress: 99,
    });
    expect(transcribingValue(Number.NaN)).toBe(5);
  });

  it("never goes backwards on a late or duplicated update", () => {
    const s = run(
      [
        ev({ status: "Transcription in progress", transcriptionProgress: 60 }),
        ev({ status: "Transcription in progress", transcriptionProgress: 30 }),
      ],
      accepted,
    );
    expect(s.progress).toBe(60);
  });

  it("ignores other jobs' events", () => {
    const other = ev({ jobId: "job-2", status: "Transcription in progress", transcriptionProgress: 70 });
    expect(transcriptionReducer(accepted, other)).toBe(accepted);
  });

  it("File uploaded gives the audio URL", () => {
    expect(run([ev({ status: "File uploaded", audioFileUrl: "/api/audio/job-1" })], accepted).audioFileUrl).toBe(
      "/api/audio/job-1",
    );
  });
});

describe("phase 3 to 5: correction", () => {
  const transcribed = run(
    [
      ev({
        status: "Transcription complete",
        transcriptionProgress: 100,
        transcription: "hello",
        transcriptionTime: 12.5,
      }),
    ],
    accepted,
  );

  it("Transcription complete shows the text and time and starts correction at 100", () => {
    expect(transcribed).toMatchObject({
      phase: "startingCorrection",
      progress: 100,
      transcription: "hello",
      transcriptionTime: 12.5,
      processing: true,
    });
  });

  it("correction 0 stays at 'starting correction'; 1 to 99 is 'correcting'", () => {
    expect(run([ev({ status: "Correction started", correctionProgress: 0 })], transcribed)).toMatchObject({
      phase: "startingCorrection",
      progress: 100,
    });
    expect(run([ev({ status: "Correction in progress", correctionProgress: 1 })], transcribed)).toMatchObject({
      phase: "correcting",
      progress: 1,
    });
    expect(run([ev({ status: "Correction in progress", correctionProgress: 100 })], transcribed)).toMatchObject({
      phase: "correcting",
      progress: 99,
    });
    expect(correctionPhase(0.5)).toEqual({ phase: "startingCorrection", progress: 100 });
  });

  it("a late transcription update does not undo the correction phase", () => {
    const s = run(
      [
        ev({ status: "Correction in progress", correctionProgress: 40 }),
        ev({ status: "Transcription in progress", transcriptionProgress: 80 }),
        ev({ status: "Correction started", correctionProgress: 0 }),
      ],
      transcribed,
    );
    expect(s).toMatchObject({ phase: "correcting", progress: 40 });
  });

  it("Correction complete shows the text, ends processing and releases the lock", () => {
    const s = run(
      [
        ev({ status: "Correction in progress", correctionProgress: 50 }),
        ev({ status: "Correction complete", correctionProgress: 100, rewrittenText: "Hello 👋", correctionTime: 3 }),
      ],
      transcribed,
    );
    expect(s).toMatchObject({
      phase: "complete",
      progress: 100,
      processing: false,
      rewrittenText: "Hello 👋",
      correctionTime: 3,
      characterCount: 7,
      transcription: "hello",
    });
  });

  it("Failed ends processing, keeps the transcript and carries the code", () => {
    const s = run(
      [ev({ status: "Failed", error: { code: "SERVICE_UNAVAILABLE", message: "down" } })],
      run([ev({ status: "Correction in progress", correctionProgress: 30 })], transcribed),
    );
    expect(s).toMatchObject({ phase: "failed", processing: false, transcription: "hello", progress: 30 });
    expect(s.error).toEqual({ code: "SERVICE_UNAVAILABLE", message: "down" });
  });

  it("nothing changes a finished job's phase", () => {
    const done = run(
      [ev({ status: "Correction complete", correctionProgress: 100, rewrittenText: "x", correctionTime: 1 })],
      transcribed,
    );
    expect(run([ev({ status: "Failed", error: { code: "INTERNAL", message: "x" } })], done)).toBe(done);
    expect(run([ev({ status: "Correction in progress", correctionProgress: 10 })], done)).toBe(done);
  });
});

describe("snapshots", () => {
  it("maps every job status to a phase", () => {
    expect(stateFromSnapshot(snapshot({ status: "queued" }))).toMatchObject({
      phase: "transcribing",
      progress: 5,
      processing: true,
    });
    expect(stateFromSnapshot(snapshot({ status: "transcribing", transcriptionProgress: 40 }))).toMatchObject({
      phase: "transcribing",
      progress: 40,
    });
    expect(
      stateFromSnapshot(snapshot({ status: "correcting", correctionProgress: 0, transcription: "t" })),
    ).toMatchObject({
      phase: "startingCorrection",
      progress: 100,
    });
    expect(stateFromSnapshot(snapshot({ status: "correcting", correctionProgress: 70 }))).toMatchObject({
      phase: "correcting",
      progress: 70,
    });
    const done = stateFromSnapshot(
      snapshot({ status: "completed", transcription: "t", rewrittenText: "r", characterCount: 321, correctionTime: 2 }),
    );
    expect(done).toMatchObject({ phase: "complete", progress: 100, processing: false, characterCount: 321 });
    const failed = stateFromSnapshot(
      snapshot({
        status: "failed",
        transcription: "t",
        error: { code: "INTERNAL", message: "m", stage: "correction" },
      }),
    );
    expect(failed).toMatchObject({ phase: "failed", processing: false, transcription: "t" });
    expect(failed.error).toEqual({ code: "INTERNAL", message: "m", stage: "correction" });
  });

  it("a snapshot of the job on screen moves it forward and fills in texts", () => {
    const s = run(
      [
        {
          type: "snapshot",
          snapshot: snapshot({
            status: "correcting",
            correctionProgress: 20,
            transcription: "t",
            transcriptionTime: 4,
          }),
        },
      ],
      accepted,
    );
    expect(s).toMatchObject({
      phase: "correcting",
      progress: 20,
      transcription: "t",
      transcriptionTime: 4,
      jobId: JOB,
    });
  });

  it("a stale snapshot does not move the screen back", () => {
    const ahead = run([ev({ status: "Correction in progress", correctionProgress: 60 })], accepted);
    const s = run(
      [{ type: "snapshot", snapshot: snapshot({ status: "transcribing", transcriptionProgress: 50 }) }],
      ahead,
    );
    expect(s).toMatchObject({ phase: "correcting", progress: 60, processing: true });
  });

  it("a failed snapshot ends an unfinished job", () => {
    const s = run(
      [
        {
          type: "snapshot",
          snapshot: snapshot({ status: "failed", error: { code: "INTERNAL", message: "m", stage: null } }),
        },
      ],
      run([ev({ status: "Correction in progress", correctionProgress: 60 })], accepted),
    );
    expect(s).toMatchObject({ phase: "failed", processing: false });
  });

  it("the completed snapshot brings the server's character count and audio expiry", () => {
    const done = run(
      [ev({ status: "Correction complete", correctionProgress: 100, rewrittenText: "abc", correctionTime: 1 })],
      accepted,
    );
    const s = run(
      [
        {
          type: "snapshot",
          snapshot: snapshot({ status: "completed", rewrittenText: "abc", characterCount: 3, audioExpired: true }),
        },
      ],
      done,
    );
    expect(s).toMatchObject({ characterCount: 3, audioExpired: true, phase: "complete" });
  });

  it("another job's snapshot replaces the screen, but not during an upload", () => {
    const s = run(
      [{ type: "snapshot", snapshot: snapshot({ jobId: "job-9", status: "completed", rewrittenText: "r" }) }],
      accepted,
    );
    expect(s).toMatchObject({ jobId: "job-9", phase: "complete", rewrittenText: "r" });
    expect(transcriptionReducer(started, { type: "snapshot", snapshot: snapshot({ jobId: "job-9" }) })).toBe(started);
  });

  it("audioExpired marks the audio as gone", () => {
    expect(transcriptionReducer(accepted, { type: "audioExpired" }).audioExpired).toBe(true);
  });

  it("reset clears everything", () => {
    expect(transcriptionReducer(accepted, { type: "reset" })).toEqual(initialTranscriptionState);
  });
});

describe("helpers", () => {
  it("bar colour: green to 50, yellow over 50, red over 80", () => {
    expect([0, 50, 50.5, 80, 80.5, 100].map(barColor)).toEqual(["green", "green", "yellow", "yellow", "red", "red"]);
  });

  it("counts characters as code points", () => {
    expect(countCharacters("日本語👍")).toBe(4);
  });

  it("effects: usage refresh on transcription complete, finish on correction complete or failure", () => {
    const e = (status: string, extra: object = {}) => effectsOf({ jobId: JOB, status, ...extra } as ProgressEvent);
    expect(e("Transcription complete")).toEqual({ refreshUsage: true, finished: false });
    expect(e("Correction complete")).toEqual({ refreshUsage: false, finished: true });
    expect(e("Failed")).toEqual({ refreshUsage: false, finished: true });
    expect(e("Transcription in progress")).toEqual({ refreshUsage: false, finished: false });
  });
});
