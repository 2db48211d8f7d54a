import { describe, expect, it } from "@jest/globals";
import type { ProgressEvent, SegmentsEvent, TranscriptionSnapshot, TranscriptSegment } from "@kikitori/shared";
import {
  barTone,
  correctionPhase,
  countCharacters,
  effectsOf,
  initialTranscriptionState,
  isSegmentsEvent,
  mergeSegments,
  shownLanguage,
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
    title: "a.mp3",
    version: 1,
    editedAt: null,
    model: "meeting",
    interviewer: "",
    interviewee: "",
    speakerCount: 2,
    diarizationEngine: null,
    notices: [],
    glossary: [],
    speakers: [],
    tone: null,
    audioLanguage: "auto",
    detectedLanguage: null,
    transcriptionEngine: null,
    segments: [],
    interviewSync: "in-sync",
    interviewConflicts: [],
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

  it("follows the bytes sent, up to 5, never backwards", () => {
    const sent = (...parts: number[]) =>
      run(
        parts.map((n) => ({ type: "uploadProgress", sent: n, total: 1000 }) as const),
        started,
      );
    expect(sent(250).progress).toBe(1.25);
    expect(sent(250).upload).toEqual({ sent: 250, total: 1000 });
    expect(sent(1000).progress).toBe(5);
    expect(sent(2000).progress).toBe(5);
    expect(sent(800, 400).progress).toBe(4);
  });

  it("upload progress does nothing outside the upload phase", () => {
    const p = { type: "uploadProgress", sent: 1, total: 2 } as const;
    expect(transcriptionReducer(accepted, p)).toBe(accepted);
    expect(transcriptionReducer(initialTranscriptionState, p)).toBe(initialTranscriptionState);
  });

  it("the upload response moves to transcribing at 5", () => {
    expect(accepted).toMatchObject({ jobId: JOB, phase: "transcribing", progress: 5, processing: true });
  });

  it("an upload error stops processing and resets progress to 0", () => {
    const s = run(
      [
        { type: "uploadProgress", sent: 10, total: 100 },
        { type: "uploadFailed", error: { code: "FILE_TOO_LARGE", status: 413 } },
      ],
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

  it("names the stage: finding speech, telling voices apart, transcribing part n of m; never backwards", () => {
    const s = run(
      [
        ev({ status: "Transcription in progress", transcriptionProgress: 5, stage: "speech" }),
        ev({ status: "Transcription in progress", transcriptionProgress: 6, stage: "voices" }),
      ],
      accepted,
    );
    expect(s.stage).toEqual({ name: "voices", part: null, parts: null });
    const parts = run(
      [
        ev({ status: "Transcription in progress", transcriptionProgress: 8, stage: "parts", part: 1, parts: 4 }),
        ev({ status: "Transcription in progress", transcriptionProgress: 30, stage: "parts", part: 2, parts: 4 }),
        // Late: an earlier stage, an earlier part.
        ev({ status: "Transcription in progress", transcriptionProgress: 6, stage: "voices" }),
        ev({ status: "Transcription in progress", transcriptionProgress: 8, stage: "parts", part: 1, parts: 4 }),
      ],
      s,
    );
    expect(parts.stage).toEqual({ name: "parts", part: 2, parts: 4 });
    expect(parts.progress).toBe(30);
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
  it("bar tone: neutral while running (whatever the value), success when complete, error only on failure", () => {
    const running = ["idle", "uploading", "transcribing", "startingCorrection", "correcting"] as const;
    expect(running.map(barTone)).toEqual(running.map(() => "running"));
    expect(barTone("complete")).toBe("done");
    expect(barTone("failed")).toBe("failed");
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

describe("live text (segments events)", () => {
  const seg = (start: number, text: string): TranscriptSegment => ({ start, end: start + 4, text });
  const chunk = (
    chunkIndex: number,
    segments: TranscriptSegment[],
    over: Partial<Omit<SegmentsEvent, "type" | "chunkIndex" | "segments">> = {},
  ): TranscriptionAction => ({
    type: "segments",
    event: {
      type: "segments",
      jobId: JOB,
      chunkIndex,
      segments,
      audioSecondsDone: (chunkIndex + 1) * 60,
      audioSecondsTotal: 600,
      etaSeconds: 90,
      language: null,
      ...over,
    },
  });
  const texts = (s: TranscriptionState) => s.segments.map((x) => x.text);

  it("adds each chunk's segments in order and moves the bar with the audio seconds", () => {
    const s = run([chunk(0, [seg(0, "Hello."), seg(4, "Welcome.")]), chunk(1, [seg(61, "Second part.")])], accepted);
    expect(texts(s)).toEqual(["Hello.", "Welcome.", "Second part."]);
    expect(s.chunksSeen).toEqual([0, 1]);
    expect(s.audio).toEqual({ done: 120, total: 600, eta: 90 });
    expect(s).toMatchObject({ phase: "transcribing", progress: 20 });
  });

  it("the same chunk twice adds nothing", () => {
    const once = run([chunk(0, [seg(0, "Hello.")])], accepted);
    expect(transcriptionReducer(once, chunk(0, [seg(0, "Hello.")]))).toBe(once);
  });

  it("a chunk the snapshot already has adds nothing; newer chunks still come in", () => {
    const s = run(
      [
        { type: "snapshot", snapshot: snapshot({ segments: [seg(0, "Hello."), seg(4, "Welcome.")] }) },
        chunk(0, [seg(0, "Hello."), seg(4, "Welcome.")]),
        chunk(1, [seg(61, "Second part.")]),
      ],
      accepted,
    );
    expect(texts(s)).toEqual(["Hello.", "Welcome.", "Second part."]);
  });

  it("a snapshot replaces the segments it covers and keeps the live ones after it", () => {
    const live = run([chunk(0, [seg(0, "helo")]), chunk(1, [seg(61, "Second part.")])], accepted);
    const s = transcriptionReducer(live, {
      type: "snapshot",
      snapshot: snapshot({ segments: [seg(0, "Hello."), seg(30, "Middle.")] }),
    });
    expect(texts(s)).toEqual(["Hello.", "Middle.", "Second part."]);
    // …and the same snapshot again changes nothing.
    const again = transcriptionReducer(s, {
      type: "snapshot",
      snapshot: snapshot({ segments: [seg(0, "Hello."), seg(30, "Middle.")] }),
    });
    expect(texts(again)).toEqual(texts(s));
  });

  it("the bar never goes backwards and the status percentage stays the floor", () => {
    const ahead = run([ev({ status: "Transcription in progress", transcriptionProgress: 50 })], accepted);
    const s = run([chunk(0, [seg(0, "a")])], ahead);
    expect(s.progress).toBe(50);
    const further = run([chunk(1, [seg(60, "b")], { audioSecondsDone: 480 })], s);
    expect(further.progress).toBe(80);
    // A late, lower count (replayed out of order) neither lowers the bar nor the seconds done.
    const late = run([chunk(2, [seg(30, "c")], { audioSecondsDone: 100, etaSeconds: 999 })], further);
    expect(late.progress).toBe(80);
    expect(late.audio).toEqual({ done: 480, total: 600, eta: 90 });
  });

  it("after Transcription complete the bar stays in its phase", () => {
    const done = run(
      [ev({ status: "Transcription complete", transcriptionProgress: 100, transcription: "t", transcriptionTime: 1 })],
      accepted,
    );
    const s = run([chunk(3, [seg(200, "late")], { audioSecondsDone: 600 })], done);
    expect(s).toMatchObject({ phase: "startingCorrection", progress: 100, transcription: "t" });
  });

  it("segments pushed during the upload are replayed with the job id; other jobs' are not", () => {
    const s = run(
      [
        chunk(0, [seg(0, "Early.")]),
        chunk(1, [seg(60, "Other job.")], { jobId: "x" }),
        { type: "uploadAccepted", jobId: JOB },
      ],
      started,
    );
    expect(texts(s)).toEqual(["Early."]);
    expect(transcriptionReducer(accepted, chunk(5, [seg(1, "x")], { jobId: "job-2" }))).toBe(accepted);
  });

  it("a snapshot of a running job gives the segments, the audio length and how far they reach", () => {
    const s = stateFromSnapshot(snapshot({ durationSeconds: 600, segments: [seg(61, "b"), seg(0, "a")] }));
    expect(texts(s)).toEqual(["a", "b"]);
    expect(s.audio).toEqual({ done: 65, total: 600, eta: null });
    expect(stateFromSnapshot(snapshot({ status: "completed", segments: [seg(0, "a")] })).audio).toBeNull();
  });

  it("the language: asked for, or detected with auto; and the engine from the snapshot", () => {
    const auto = run([
      { type: "uploadStart", audioLanguage: "auto" },
      { type: "uploadAccepted", jobId: JOB },
    ]);
    expect(shownLanguage(auto)).toBeNull();
    const heard = run([chunk(0, [seg(0, "こんにちは")], { language: "ja" })], auto);
    expect(shownLanguage(heard)).toEqual({ code: "ja", detected: true });
    const de = run([
      { type: "uploadStart", audioLanguage: "de" },
      { type: "uploadAccepted", jobId: JOB },
    ]);
    expect(shownLanguage(de)).toEqual({ code: "de", detected: false });
    const done = transcriptionReducer(heard, {
      type: "snapshot",
      snapshot: snapshot({ status: "completed", detectedLanguage: "ja", transcriptionEngine: "whisper:base" }),
    });
    expect(done).toMatchObject({ audioLanguage: "auto", spokenLanguage: "ja", engine: "whisper:base" });
    expect(shownLanguage(stateFromSnapshot(snapshot({ audioLanguage: "fr" })))).toEqual({
      code: "fr",
      detected: false,
    });
  });

  it("mergeSegments keeps order and drops pieces already there", () => {
    const a = [seg(0, "a"), seg(10, "c")];
    expect(mergeSegments(a, [])).toBe(a);
    expect(mergeSegments(a, [seg(5, "b"), seg(0, "a"), seg(5, "b")]).map((x) => x.text)).toEqual(["a", "b", "c"]);
  });

  it("tells segments events from status events", () => {
    const action = chunk(0, []);
    expect(action.type === "segments" && isSegmentsEvent(action.event)).toBe(true);
    expect(isSegmentsEvent({ jobId: JOB, status: "Transcription started", transcriptionProgress: 0 })).toBe(false);
  });
});
