// The use cases of a user's transcription jobs once they exist: the snapshot, the library's page, the
// stored audio, the usage record, the delete and the retry. The routes (read-routes.ts,
// manage-routes.ts, usage-routes.ts) call these; jobs/repository.ts binds the repository to Postgres
// (reads through Prisma, writes through the job lifecycle module), and tests/support/use-cases.ts to
// in-memory maps. The upload of a recording is its own use case (upload-usecases.ts).
import {
  AppError,
  type LibrarySort,
  matchSnippet,
  type PlanName,
  type PlanQuota,
  QUEUES,
  type TranscriptionListItem,
  type TranscriptionSnapshot,
  type TranscriptSegment,
  type UsageRecord,
} from "@kikitori/shared";
import {
  chargeableSeconds,
  type JobQueues,
  type JobRow,
  type Logger,
  toUsageRecord,
  type UsageRow,
} from "@kikitori/shared/server";
import type { StoredAudio } from "../lib/audio-stream.ts";
import { isAudioExpired, toListItem, toSnapshot } from "./snapshot.ts";

/** A job's chunk as the delete reads it: its object, where it lies in the recording, when its text went out. */
export interface JobChunk {
  objectKey: string;
  startSeconds: number;
  endSeconds: number;
  publishedAt: Date | null;
}

/** Where jobs are read, and the lifecycle's transitions the gateway asks for. */
export interface JobRepository {
  /** The user's own job, or 404 NOT_FOUND with `message` (also for an id that is not a UUID). */
  ownJob(uid: string, jobId: string, message?: string): Promise<JobRow>;
  /** Jobs by id, in the order of `ids` (ids no longer there are left out). */
  jobsInOrder(ids: string[]): Promise<JobRow[]>;
  /** One page of the user's job ids in the asked order, and how many match in all. */
  search(opts: {
    userId: string;
    q?: string;
    sort?: LibrarySort;
    page: number;
    limit: number;
  }): Promise<{ ids: string[]; total: number }>;
  /** The segments of a running job whose live text went out already, in order. */
  liveSegments(jobId: string): Promise<TranscriptSegment[]>;
  chunks(jobId: string): Promise<JobChunk[]>;
  /** Whether the job's transcription has been charged (its usage event exists). */
  transcriptionCharged(jobId: string): Promise<boolean>;
  /** Charges `seconds` under the job's own transcription key, once; false when already charged. */
  chargeTranscription(uid: string, jobId: string, seconds: number): Promise<boolean>;
  /** Holds `seconds` of the user's month for the job's retry; false when they are not left. */
  holdForRetry(uid: string, jobId: string, seconds: number): Promise<boolean>;
  /** failed → queued again (at the correction when `atCorrection`); false when the job moved meanwhile. */
  retry(jobId: string, atCorrection: boolean): Promise<boolean>;
  releaseQuota(jobId: string): Promise<void>;
  /** Deletes the job's row (its texts with it). */
  remove(jobId: string): Promise<boolean>;
  /** The user's row (plan, counters, period); 404 USER_NOT_FOUND when gone. */
  usageRow(uid: string): Promise<UsageRow>;
}

export interface JobServicePorts {
  repo: JobRepository;
  /** The audio and chunk objects (removed with the job). */
  objects: { remove(key: string): Promise<void> };
  /** The registry's queues (services/shared/src/jobs.ts): a retry enqueues through them. */
  queues: Pick<JobQueues, "enqueue">;
  quotas: Record<PlanName, PlanQuota>;
  /** The clock of the usage record (tests); default the real one. */
  now?: () => Date;
  /** A fresh BullMQ id for a retried run (the failed run's id is still in the queue's failed set). */
  runId?: (jobId: string) => string;
  /** Waits between looks at a job whose recording is still on its way to the store (tests); default a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** How long GET /api/audio waits for a just-accepted recording to reach the store before a 503. */
export const AUDIO_PENDING_WAIT_MS = 15_000;

type Log = Pick<Logger, "info" | "warn">;

export class JobService {
  private readonly repo: JobRepository;
  private readonly now: () => Date;

  constructor(private readonly ports: JobServicePorts) {
    this.repo = ports.repo;
    this.now = ports.now ?? (() => new Date());
  }

  /** The job's snapshot; a job still transcribing carries the live segments already sent. */
  async snapshot(uid: string, jobId: string): Promise<TranscriptionSnapshot> {
    const job = await this.repo.ownJob(uid, jobId);
    const live = job.status === "transcribing" && !job.segments ? await this.repo.liveSegments(job.id) : [];
    return toSnapshot(job, new Date(), live);
  }

  /** A page of the user's jobs: full snapshots, or the library's light items with the passage found. */
  async list(
    uid: string,
    query: { limit: number; page: number; q?: string; sort?: LibrarySort; view?: "full" | "library" },
  ): Promise<
    | { jobs: TranscriptionSnapshot[]; total: number; page: number; pageSize: number }
    | { jobs: TranscriptionListItem[]; total: number; page: number; pageSize: number }
  > {
    const { limit, page, q, sort, view } = query;
    const { ids, total } = await this.repo.search({ userId: uid, q, sort, page, limit });
    const found = await this.repo.jobsInOrder(ids);
    if (view === "library") {
      const jobs = found.map((job) =>
        toListItem(job, q ? (matchSnippet(job.rewrittenText, q) ?? matchSnippet(job.transcription, q)) : null),
      );
      return { jobs, total, page, pageSize: limit };
    }
    return { jobs: found.map((job) => toSnapshot(job)), total, page, pageSize: limit };
  }

  /** Where the job's stored audio is; 410 AUDIO_EXPIRED after the retention period. */
  async audio(uid: string, jobId: string): Promise<StoredAudio> {
    let job = await this.repo.ownJob(uid, jobId, "No such recording");
    // Just accepted: the recording reaches the store a moment after the answer (audio-handoff.ts).
    const sleep = this.ports.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    for (let waited = 0; job.audioPending && job.status === "queued"; waited += 100) {
      if (waited >= AUDIO_PENDING_WAIT_MS) {
        throw new AppError("SERVICE_UNAVAILABLE", "The recording is still being stored; try again in a moment");
      }
      await sleep(100);
      job = await this.repo.ownJob(uid, jobId, "No such recording");
    }
    if (isAudioExpired(job)) {
      throw new AppError("AUDIO_EXPIRED", "The audio has expired and was deleted");
    }
    return { key: job.audioKey, mime: job.audioMime, bytes: job.audioBytes };
  }

  /** The user's plan, quotas, usage and reset date. */
  async usage(uid: string): Promise<UsageRecord> {
    return toUsageRecord(await this.repo.usageRow(uid), this.ports.quotas, this.now());
  }

  /** Deletes a job: its row, then its audio and chunk objects. */
  async remove(uid: string, jobId: string, log: Log): Promise<void> {
    const job = await this.repo.ownJob(uid, jobId);
    const chunks = await this.repo.chunks(job.id);
    // Live text that already went out over the socket was delivered: deleting the job before its
    // transcript is charged still charges the seconds of recording it covered, under the job's own
    // key, so a transcript completing meanwhile is never charged twice.
    // Chunks go out in order: what went out covers the recording up to the last published chunk's end.
    const delivered = Math.max(0, ...chunks.filter((c) => c.publishedAt).map((c) => c.endSeconds));
    if (delivered > 0) {
      const seconds = Math.min(Math.ceil(delivered), chargeableSeconds(job.durationSeconds));
      if (await this.repo.chargeTranscription(uid, job.id, seconds)) {
        log.info({ jobId: job.id, seconds }, "live text delivered before the delete charged");
      }
    }
    // The row first: a worker still on the job then finds nothing and stops; the objects follow.
    await this.repo.remove(job.id);
    const keys = [job.audioKey, ...chunks.map((c) => c.objectKey)];
    const failed = (await Promise.allSettled(keys.map((k) => this.ports.objects.remove(k)))).filter(
      (r) => r.status === "rejected",
    );
    if (failed.length) log.warn({ jobId: job.id, failed: failed.length }, "some objects could not be removed");
    log.info({ jobId: job.id, objects: keys.length }, "transcription deleted");
  }

  /** Runs a failed job again from where it stopped (usage is never charged twice); its fresh snapshot. */
  async retry(uid: string, jobId: string, log: Log): Promise<TranscriptionSnapshot> {
    const job = await this.repo.ownJob(uid, jobId);
    if (job.status !== "failed") throw new AppError("JOB_NOT_READY", "Only a failed job can be retried");
    const atCorrection = job.transcription !== null && job.transcriptionTime !== null;
    if (!atCorrection) await this.holdForRetry(uid, job);
    if (!(await this.repo.retry(job.id, atCorrection))) {
      if (!atCorrection) await this.repo.releaseQuota(job.id);
      throw new AppError("JOB_NOT_READY", "The job changed meanwhile; try again");
    }
    const runId = this.ports.runId?.(job.id) ?? `${job.id}-retry-${Date.now()}`;
    if (atCorrection) {
      await this.ports.queues.enqueue(
        QUEUES.correction,
        "correct",
        { jobId: job.id, userId: uid, correlationId: job.correlationId },
        { jobId: runId },
      );
    } else {
      await this.ports.queues.enqueue(
        QUEUES.transcription,
        "transcribe",
        { jobId: job.id, userId: uid, audioKey: job.audioKey, correlationId: job.correlationId },
        { jobId: runId },
      );
    }
    log.info({ jobId: job.id, stage: atCorrection ? "correction" : "transcription" }, "job retried");
    return toSnapshot(await this.repo.ownJob(uid, job.id));
  }

  /**
   * A retry from the transcription needs its audio, and its minutes: not charged yet (charging happens
   * when the transcript is complete), they must still be there, and are held again (a failed job holds
   * none) while it runs.
   */
  private async holdForRetry(uid: string, job: JobRow): Promise<void> {
    if (isAudioExpired(job)) throw new AppError("AUDIO_EXPIRED", "The audio has expired and was deleted");
    const charged = await this.repo.transcriptionCharged(job.id);
    const seconds = chargeableSeconds(job.durationSeconds);
    const held = charged || (await this.repo.holdForRetry(uid, job.id, seconds));
    if (!held) throw new AppError("QUOTA_EXCEEDED", "Not enough minutes left this month for this recording");
  }
}
