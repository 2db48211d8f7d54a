/**
 * One recorder session: the microphone, a MediaRecorder handing over a chunk every second (each kept
 * in IndexedDB at once), the pauses, and an AnalyserNode for the level meter.
 */
import { CHUNK_MS, levelOf, RECORDER_BITS_PER_SECOND, sessionElapsedMs } from "./recording.ts";
import type { RecordingStore } from "./recordingStore.ts";

/** Why recording could not start: each has its own message. */
export type RecorderProblem = "unsupported" | "denied" | "noMicrophone" | "micBusy" | "failed";

export class RecorderStartError extends Error {
  constructor(readonly problem: RecorderProblem) {
    super(`Recording could not start: ${problem}`);
  }
}

/** Whether this browser can record at all (MediaRecorder and a microphone API, on a secure page). */
export function canRecord(): boolean {
  return (
    typeof MediaRecorder !== "undefined" && typeof navigator !== "undefined" && !!navigator.mediaDevices?.getUserMedia
  );
}

function problemOf(err: unknown): RecorderProblem {
  const name = err instanceof DOMException || err instanceof Error ? err.name : "";
  if (name === "NotAllowedError" || name === "SecurityError") return "denied";
  if (name === "NotFoundError" || name === "OverconstrainedError") return "noMicrophone";
  if (name === "NotReadableError" || name === "AbortError") return "micBusy";
  return "failed";
}

export interface SessionEvents {
  /** A chunk arrived; `bytes` is this session's total so far. */
  onChunk(bytes: number): void;
  /** The recorder stopped (Stop, an error or the microphone gone): the session's chunks, in order. */
  onStop(chunks: Blob[]): void;
  /** A chunk could not be kept in IndexedDB (storage full): the recording goes on in memory. */
  onKeepFailed(): void;
}

export class RecorderSession {
  private readonly chunks: Blob[] = [];
  private bytes = 0;
  private seq = 0;
  private readonly startedAt = Date.now();
  private pausedMs = 0;
  private pausedAt: number | null = null;
  private readonly samples: Uint8Array<ArrayBuffer>;
  private stoppedAt: number | null = null;

  private constructor(
    private readonly stream: MediaStream,
    private readonly recorder: MediaRecorder,
    private readonly audio: AudioContext | null,
    private readonly analyser: AnalyserNode | null,
    private readonly target: { store: RecordingStore | null; id: string; part: number },
    private readonly events: SessionEvents,
  ) {
    this.samples = new Uint8Array(analyser?.fftSize ?? 0);
    recorder.ondataavailable = (e) => this.onData(e.data);
    recorder.onstop = () => this.finish();
    recorder.onerror = () => this.stop();
    for (const track of stream.getAudioTracks()) track.addEventListener("ended", () => this.stop());
  }

  /** Asks for the microphone and starts recording part `part` of recording `id`. */
  static async start(
    target: { store: RecordingStore | null; id: string; part: number },
    mimeType: string | null,
    events: SessionEvents,
  ): Promise<RecorderSession> {
    if (!canRecord()) throw new RecorderStartError("unsupported");
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      });
    } catch (err) {
      throw new RecorderStartError(problemOf(err));
    }
    let recorder: MediaRecorder;
    try {
      recorder = new MediaRecorder(stream, {
        ...(mimeType ? { mimeType } : {}),
        audioBitsPerSecond: RECORDER_BITS_PER_SECOND,
      });
    } catch {
      for (const track of stream.getTracks()) track.stop();
      throw new RecorderStartError("unsupported");
    }
    const { audio, analyser } = meterFor(stream);
    const session = new RecorderSession(stream, recorder, audio, analyser, target, events);
    recorder.start(CHUNK_MS);
    return session;
  }

  /** The container the browser really records (it may differ from the one asked for). */
  get mimeType(): string {
    return this.recorder.mimeType;
  }

  get paused(): boolean {
    return this.pausedAt !== null;
  }

  elapsedMs(now = Date.now()): number {
    const at = this.stoppedAt ?? now;
    return sessionElapsedMs({ startedAt: this.startedAt, pausedMs: this.pausedMs, pausedAt: this.pausedAt }, at);
  }

  /** The microphone level now, 0…1 (0 while paused or without an analyser). */
  level(): number {
    if (!this.analyser || this.paused) return 0;
    this.analyser.getByteTimeDomainData(this.samples);
    return levelOf(this.samples);
  }

  pause() {
    if (this.recorder.state !== "recording") return;
    this.recorder.pause();
    this.pausedAt = Date.now();
  }

  resume() {
    if (this.recorder.state !== "paused" || this.pausedAt === null) return;
    this.recorder.resume();
    this.pausedMs += Date.now() - this.pausedAt;
    this.pausedAt = null;
  }

  /** Stops; `onStop` follows once the recorder handed over its last chunk. */
  stop() {
    if (this.recorder.state !== "inactive") this.recorder.stop();
    else this.finish();
  }

  private onData(data: Blob) {
    if (data.size === 0) return;
    this.chunks.push(data);
    this.bytes += data.size;
    const seq = this.seq++;
    const { store, id, part } = this.target;
    store?.append(id, part, seq, data, this.elapsedMs()).catch(() => this.events.onKeepFailed());
    this.events.onChunk(this.bytes);
  }

  private finish() {
    if (this.stoppedAt !== null) return;
    this.stoppedAt = Date.now();
    for (const track of this.stream.getTracks()) track.stop();
    void this.audio?.close().catch(() => undefined);
    this.events.onStop([...this.chunks]);
  }
}

/** An AnalyserNode on the microphone for the level meter; none when Web Audio is missing. */
function meterFor(stream: MediaStream): { audio: AudioContext | null; analyser: AnalyserNode | null } {
  try {
    const audio = new AudioContext();
    const analyser = audio.createAnalyser();
    analyser.fftSize = 1024;
    audio.createMediaStreamSource(stream).connect(analyser);
    // Opened by the Record click (a user gesture); Safari may still start it suspended.
    void audio.resume().catch(() => undefined);
    return { audio, analyser };
  } catch {
    return { audio: null, analyser: null };
  }
}
