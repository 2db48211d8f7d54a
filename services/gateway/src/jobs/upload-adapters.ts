// The upload use case bound to the real things: Postgres (Prisma), the object store, ffprobe and
// ffmpeg, Redis and the registry's queues (services/shared/src/jobs.ts). services/gateway/src/app.ts
// builds it once and hands it to the routes.
import { randomUUID } from "node:crypto";
import { pageUrl } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  decodedSeconds,
  type JobQueues,
  jobLifecycle,
  type ObjectStore,
  probeAudio,
  publishProgress,
  type Redis,
  readSpeechStatus,
  secondsLeft,
  sniffAudioFile,
  withReservedSeconds,
} from "@kikitori/shared/server";
import { glossaryRepository } from "../glossary/repository.ts";
import { Semaphore } from "../lib/semaphore.ts";
import { DECODE_WAIT_MS, UploadService } from "./upload-usecases.ts";

export function createUploadService(deps: {
  db: Db;
  redis: Redis;
  redisPrefix: string;
  store: ObjectStore;
  jobs: Pick<JobQueues, "enqueue">;
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
    audio: {
      put: (key, file, bytes, contentType, sha256) => deps.store.putFile(key, file, bytes, contentType, sha256),
      remove: (key) => deps.store.remove(key),
    },
    jobs: {
      createReserved: (row) =>
        withReservedSeconds(deps.db, row.userId, row.reservedSeconds, deps.quotas, async (tx) => {
          await jobLifecycle.create(tx, row);
          return true;
        }),
    },
    queues: deps.jobs,
    publish: (envelope) => publishProgress(deps.redis, deps.redisPrefix, envelope),
    planLink: (lang) => pageUrl(deps.publicUrl, lang, "upgradePlan"),
    retentionDays: deps.retentionDays,
    now: () => new Date(),
    newId: randomUUID,
  });
}
