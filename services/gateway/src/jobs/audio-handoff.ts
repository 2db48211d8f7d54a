// An accepted upload's recording, from the gateway's disk to the object store, then into the queue.
// The answer (202) comes once the job row holds the minutes (upload-usecases.ts); the store write,
// which alone costs a few times the upload itself on the embedded store, runs after it here
// (docs/decisions/0030). A marker file beside the recording names its job, so a gateway that stops
// or dies before the recording is stored leaves it for the next gateway start on that disk (resume);
// a recording still held in memory (a small single POST) is marked and written just after the
// answer. A store that fails is retried for a while, then the job fails with its minutes given back;
// the retention schedule fails jobs whose gateway and disk are gone for good.
import { readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { type ProgressEnvelope, QUEUES } from "@kikitori/shared";
import { AUDIO_NOT_STORED, type JobQueues, type Logger } from "@kikitori/shared/server";
import { audioFileUrl } from "../lib/paths.ts";

/** An accepted recording on its way to the store: what is needed to store it and queue its job. */
export interface PendingRecording {
  jobId: string;
  userId: string;
  audioKey: string;
  contentType: string;
  bytes: number;
  correlationId: string;
}

/** A recording's bytes still in memory; free() gives their room back (once written). */
export interface HeldBytes {
  chunks: Buffer[];
  free: () => void;
}

/** The file beside the recording that names its job and the recording's file name. */
export const HANDOFF_MARKER = "handoff.json";

type Marker = PendingRecording & { file: string };

/** What happened to the job meanwhile (for a store write that finished after the job moved on). */
export type PendingJobState = "pending" | "stored" | "gone";

export interface HandoffPorts {
  put(key: string, file: string, bytes: number, contentType: string): Promise<void>;
  remove(key: string): Promise<void>;
  /** The job's audio is stored (jobLifecycle.audioStored); false when it was not pending any more. */
  stored(jobId: string): Promise<boolean>;
  /** The job fails, its recording never stored (jobLifecycle.audioNotStored); false when it was not pending. */
  notStored(jobId: string): Promise<boolean>;
  /** pending: still waiting for its audio; stored: queued with its audio (another gateway stored it); gone: deleted or failed. */
  state(jobId: string): Promise<PendingJobState>;
  queues: Pick<JobQueues, "enqueue">;
  publish(envelope: ProgressEnvelope): Promise<unknown>;
  log: Pick<Logger, "info" | "warn" | "error">;
}

export interface HandoffOptions {
  /** Where the recordings wait (the gateway's UPLOAD_TMP_DIR): scanned by resume(). */
  tmpDir: string;
  /** How long a failing store is retried before the job fails. */
  retryForMs: number;
  /** How often a running hand-off touches its marker (a fresh marker is never resumed elsewhere). */
  heartbeatMs: number;
  /** A marker untouched for this long belongs to a hand-off that stopped: resume() takes it over. */
  staleMs: number;
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class AudioHandoff {
  /** Hand-offs running on this gateway, by folder. */
  private readonly running = new Map<string, Promise<void>>();
  private closing = false;
  private watching: NodeJS.Timeout | null = null;

  constructor(
    private readonly ports: HandoffPorts,
    private readonly opts: HandoffOptions,
  ) {}

  /** How many recordings this gateway is storing now. */
  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Writes the marker beside `file` (the recording, alone in its own folder): from then on a gateway
   * that finds it takes the recording over, or, when its job was never recorded, clears it away. A
   * recording on disk is marked while its job is recorded, before the answer; a held one just after,
   * by keep(), as it is written (until then a crash loses it with the process: its job fails within
   * the retention sweep's 30 minutes, uncharged).
   */
  async mark(file: string, rec: PendingRecording): Promise<void> {
    const marker: Marker = { ...rec, file: path.basename(file) };
    await writeFile(path.join(path.dirname(file), HANDOFF_MARKER), JSON.stringify(marker));
  }

  /**
   * Takes over the folder of a marked `file` (`held`: its bytes, when they are still in memory):
   * (writes the held bytes to `file`,) stores and queues in the background. The recording outlives
   * this process from the marker on (a held one once it is written, a few milliseconds later). The
   * folder goes once the hand-off has ended.
   */
  keep(file: string, rec: PendingRecording, held?: HeldBytes): void {
    this.start(path.dirname(file), { ...rec, file: path.basename(file) }, held);
  }

  private start(dir: string, rec: Marker, held?: HeldBytes): void {
    if (this.running.has(dir)) {
      held?.free();
      return;
    }
    if (this.closing) {
      // Stopping: the recording is only put on the disk, for the next start to take over.
      if (held) void this.write(dir, rec, held);
      return;
    }
    const run = this.run(dir, rec, held)
      .catch((err) => this.ports.log.error({ err, jobId: rec.jobId }, "audio hand-off failed"))
      .finally(() => this.running.delete(dir));
    this.running.set(dir, run);
  }

  private async run(dir: string, rec: Marker, held?: HeldBytes): Promise<void> {
    const marker = path.join(dir, HANDOFF_MARKER);
    const beat = setInterval(() => {
      const now = new Date();
      void utimes(marker, now, now).catch(() => undefined);
    }, this.opts.heartbeatMs);
    beat.unref();
    try {
      // Held bytes go to disk first (written aside, then renamed: a recording is whole or absent);
      // a recording that is not there whole (its gateway died before it was written) cannot be stored.
      const written = held ? await this.write(dir, rec, held) : await this.whole(dir, rec);
      const outcome = written ? await this.storeWithRetries(dir, rec) : "failed";
      if (outcome === "stopped") return; // the gateway is stopping: the marker stays for resume()
      if (outcome === "stored") await this.queue(rec);
      else await this.fail(rec);
      await rm(dir, { recursive: true, force: true });
    } finally {
      clearInterval(beat);
    }
  }

  private async write(dir: string, rec: Marker, held: HeldBytes): Promise<boolean> {
    const aside = path.join(dir, `${rec.file}.part`);
    try {
      await this.mark(path.join(dir, rec.file), rec);
      await writeFile(aside, held.chunks);
      await rename(aside, path.join(dir, rec.file));
      return true;
    } catch (err) {
      this.ports.log.error({ err, jobId: rec.jobId }, "could not write the recording to disk");
      return false;
    } finally {
      held.chunks = [];
      held.free();
    }
  }

  private async whole(dir: string, rec: Marker): Promise<boolean> {
    const found = await stat(path.join(dir, rec.file)).catch(() => null);
    return found?.size === rec.bytes;
  }

  /** PUTs the recording, retrying a failing store with backoff (1 s doubling to 30 s) for retryForMs. */
  private async storeWithRetries(dir: string, rec: Marker): Promise<"stored" | "failed" | "stopped"> {
    const { ports: p, opts } = this;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        await p.put(rec.audioKey, path.join(dir, rec.file), rec.bytes, rec.contentType);
        return "stored";
      } catch (err) {
        p.log.warn({ err, jobId: rec.jobId, attempt }, "could not store the recording yet");
      }
      if (this.closing) return "stopped";
      if (Date.now() - started >= opts.retryForMs) return "failed";
      if ((await p.state(rec.jobId).catch(() => "pending")) === "gone") return "failed";
      await (opts.sleep ?? wait)(Math.min(30_000, 1000 * 2 ** attempt));
      if (this.closing) return "stopped";
    }
  }

  /** Stored: the job is queued and the user's sockets told; a job deleted or failed meanwhile loses the object. */
  private async queue(rec: PendingRecording): Promise<void> {
    const p = this.ports;
    const moved = await p.stored(rec.jobId);
    const state = moved ? "stored" : await p.state(rec.jobId);
    if (state === "gone") {
      await p.remove(rec.audioKey).catch(() => undefined);
      return;
    }
    if (state === "pending") throw new Error(`job ${rec.jobId} is still pending after its audio was stored`);
    // The job id doubles as BullMQ's: a second add (another gateway resumed the same recording) changes nothing.
    await p.queues.enqueue(
      QUEUES.transcription,
      "transcribe",
      { jobId: rec.jobId, userId: rec.userId, audioKey: rec.audioKey, correlationId: rec.correlationId },
      { jobId: rec.jobId },
    );
    if (!moved) return;
    await p
      .publish({
        userId: rec.userId,
        correlationId: rec.correlationId,
        event: { jobId: rec.jobId, status: "File uploaded", audioFileUrl: audioFileUrl(rec.jobId) },
      })
      .catch((err) => p.log.warn({ err, jobId: rec.jobId }, "could not publish File uploaded"));
    p.log.info({ jobId: rec.jobId, bytes: rec.bytes }, "recording stored and queued");
  }

  /** The store never took it: the job fails (its minutes given back) and nothing half-written stays. */
  private async fail(rec: PendingRecording): Promise<void> {
    const p = this.ports;
    if (!(await p.notStored(rec.jobId))) {
      // Not pending any more: deleted (its objects went with it) or stored by another gateway.
      if ((await p.state(rec.jobId)) === "gone") await p.remove(rec.audioKey).catch(() => undefined);
      return;
    }
    await p.remove(rec.audioKey).catch(() => undefined);
    p.log.error({ jobId: rec.jobId }, "recording never reached the store: job failed");
    await p
      .publish({
        userId: rec.userId,
        correlationId: rec.correlationId,
        event: {
          jobId: rec.jobId,
          status: "Failed",
          error: { code: "SERVICE_UNAVAILABLE", message: AUDIO_NOT_STORED },
        },
      })
      .catch(() => undefined);
  }

  /**
   * Takes over recordings in tmpDir whose hand-off stopped (this gateway restarted, or another one on
   * the same disk died): markers untouched for staleMs. Returns how many it started.
   */
  async resume(): Promise<number> {
    const names = await readdir(this.opts.tmpDir).catch(() => [] as string[]);
    let started = 0;
    // Only the upload folders (UPLOAD_TMP_DIR is often the system's temp dir, shared with everything).
    for (const name of names.filter((n) => n.startsWith("kikitori-upload-") || n.startsWith("kikitori-resumable-"))) {
      const dir = path.join(this.opts.tmpDir, name);
      if (this.running.has(dir) || this.closing) continue;
      const marker = path.join(dir, HANDOFF_MARKER);
      const seen = await stat(marker).catch(() => null);
      if (!seen || Date.now() - seen.mtimeMs < this.opts.staleMs) continue;
      const rec = await readFile(marker, "utf8")
        .then((t) => JSON.parse(t) as Marker)
        .catch(() => null);
      if (!rec?.jobId || !rec.audioKey || !rec.file || rec.file !== path.basename(rec.file)) continue;
      this.ports.log.info({ jobId: rec.jobId }, "resuming the hand-off of a recording");
      this.start(dir, rec);
      started++;
    }
    return started;
  }

  /** resume() now and every `everyMs`, until close(). */
  watch(everyMs: number): void {
    const sweep = () =>
      void this.resume().catch((err) => this.ports.log.warn({ err }, "could not look for stopped hand-offs"));
    sweep();
    this.watching = setInterval(sweep, everyMs);
    this.watching.unref();
  }

  /** Shutdown: no new hand-offs; waits up to `ms` for the running ones (the rest resume at the next start). */
  async close(ms: number): Promise<void> {
    this.closing = true;
    if (this.watching) clearInterval(this.watching);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running.values()]),
      new Promise<void>((r) => {
        timer = setTimeout(r, ms);
      }),
    ]);
    clearTimeout(timer);
  }
}
