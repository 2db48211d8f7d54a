// The upload use case and the hand-off of its recordings bound to the real things: Postgres (Prisma),
// the object store, ffprobe and ffmpeg, Redis and the registry's queues (services/shared/src/jobs.ts).
// services/gateway/src/app.ts builds them once and hands them to the routes.
import { randomUUID } from "node:crypto";
import { pageUrl } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  decodedSeconds,
  type JobQueues,
  jobLifecycle,
  type Logger,
  type ObjectStore,
  probeAudio,
  publishProgress,
  type Redis,
  readSpeechStatus,
  secondsLeft,
  sniffAudioFile,
  underQuota,
} from "@kikitori/shared/server";
import { glossaryRepository } from "../glossary/repository.ts";
import { Semaphore } from "../lib/semaphore.ts";
import { AudioHandoff, type HandoffOptions } from "./audio-handoff.ts";
import { DECODE_WAIT_MS, UploadService } from "./upload-usecases.ts";

/** Fails a job whose recording never reached the store (the use case and the hand-off both may). */
const failUnstored = (db: Db) => (jobId: string) => jobLifecycle.audioNotStored(db, jobId, new Date());

/** The hand-off of accepted recordings to the store and the queue (one per gateway). */
export function createAudioHandoff(
  deps: {
    db: Db;
    redis: Redis;
    redisPrefix: string;
    store: ObjectStore;
    jobs: Pick<JobQueues, "enqueue">;
    logger: Logger;
  },
  opts: HandoffOptions,
): AudioHandoff {
  const { db } = deps;
  return new AudioHandoff(
    {
      put: (key, file, bytes, contentType) => deps.store.putFile(key, file, bytes, contentType),
      remove: (key) => deps.store.remove(key),
      stored: (jobId) => jobLifecycle.audioStored(db, jobId),
      notStored: failUnstored(db),
      state: async (jobId) => {
        const job = await db.transcriptionJob.findUnique({
          where: { id: jobId },
          select: { status: true, audioPending: true },
        });
        if (!job || job.status === "failed") return "gone";
        return job.audioPending ? "pending" : "stored";
      },
      queues: deps.jobs,
      publish: (envelope) => publishProgress(deps.redis, deps.redisPrefix, envelope),
      log: deps.logger,
    },
    opts,
  );
}

export function createUploadService(deps: {
  db: Db;
  redis: Redis;
  redisPrefix: string;
  store: ObjectStore;
  handoff: AudioHandoff;
  quotas: Parameters<typeof secondsLeft>[2];
  publicUrl: string;
  retentionDays: number;
  /** Uploads checked (ffprobe + decode) at once on this gateway; the rest wait their turn. */
  decodesPerGateway: number;
}): UploadService {
  const decodes = new Semaphore(deps.decodesPerGateway);
  return new UploadService({
    speechStatus: () => readSpeechStatus(deps.redis, deps.redisPrefix),
    secondsLeft: (uid) => secondsLeft(deps.db, uid, deps.quotas),
    accountGlossary: (uid) => glossaryRepository(deps.db).read(uid),
    decodeSlot: () => decodes.acquire(DECODE_WAIT_MS),
    sniff: (file, head) => sniffAudioFile(file, head),
    probe: (file, format) => probeAudio(file, format),
    decodedSeconds: (file, format, stream, maxSeconds) => decodedSeconds(file, format, stream, maxSeconds),
    storeReachable: () => deps.store.ping(),
    handoff: deps.handoff,
    jobs: {
      createReserved: (row) =>
        underQuota(
          deps.db,
          { userId: row.userId, seconds: row.reservedSeconds, quotas: deps.quotas, at: new Date() },
          (guard) => jobLifecycle.createUnderQuota(deps.db, row, guard),
        ),
      notStored: failUnstored(deps.db),
    },
    planLink: (lang) => pageUrl(deps.publicUrl, lang, "upgradePlan"),
    retentionDays: deps.retentionDays,
    now: () => new Date(),
    newId: randomUUID,
  });
}
