// The gateway's use cases bound to the real things: Postgres (Prisma), the object store, ffprobe and
// ffmpeg, Redis and the registry's queues (services/shared/src/jobs.ts). services/gateway/src/app.ts
// builds them once and hands them to the routes.
import { randomUUID } from "node:crypto";
import { DEFAULT_LANGUAGE, isSupportedLanguage, pageUrl, QUEUES } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  createTextRun,
  decodedSeconds,
  failTextRun,
  type JobQueues,
  jobLifecycle,
  type Logger,
  type ObjectStore,
  probeAudio,
  publishProgress,
  type Redis,
  readSpeechStatus,
  releaseCount,
  reserveCount,
  secondsLeft,
  sniffAudioFile,
  withReservedSeconds,
} from "@kikitori/shared/server";
import { glossaryRepository } from "../glossary/repository.ts";
import { Semaphore } from "../lib/semaphore.ts";
import { TextJobTimeout, TextRunService } from "./text-run.ts";
import { DECODE_WAIT_MS, UploadService } from "./upload.ts";

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
      put: (key, file, bytes, contentType) => deps.store.putFile(key, file, bytes, contentType),
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

/** BullMQ's words when `waitUntilFinished` runs out of time. */
const isWaitTimeout = (err: unknown): err is Error =>
  err instanceof Error && /timed out before finishing/.test(err.message);

export async function createTextRunService(deps: {
  db: Db;
  store: ObjectStore;
  jobs: Pick<JobQueues, "enqueue" | "events">;
  quotas: Parameters<typeof reserveCount>[3];
  timeoutMs: number;
  publicUrl: string;
  contactUrl: string;
  logger: Pick<Logger, "warn">;
}): Promise<TextRunService> {
  const { db } = deps;
  // Listen before the first request (events before the listener starts would be missed), without
  // holding the gateway's start hostage to Redis.
  const events = deps.jobs.events(QUEUES.text);
  await Promise.race([events.waitUntilReady(), new Promise((r) => setTimeout(r, 5_000).unref())]).catch((err) =>
    deps.logger.warn({ err }, "text queue events not ready yet"),
  );
  return new TextRunService({
    quota: {
      reserve: (uid, kind) => reserveCount(db, uid, kind, deps.quotas),
      release: (uid, kind) => releaseCount(db, uid, kind),
    },
    runs: {
      create: async (run) => {
        await createTextRun(db, run);
      },
      fail: (runId, status, errorCode, durationMs) => failTextRun(db, runId, status, errorCode, durationMs),
      find: (runId) => db.textRun.findUnique({ where: { id: runId } }),
    },
    saveInput: (key, body) => deps.store.put(key, body, body.length, "application/json"),
    enqueue: async (payload) => {
      const job = await deps.jobs.enqueue(QUEUES.text, payload.kind, payload, { jobId: payload.runId });
      return {
        result: (ms) =>
          job.waitUntilFinished(events, ms).catch((err: unknown) => {
            throw isWaitTimeout(err) ? new TextJobTimeout(err.message) : err;
          }),
        remove: () => job.remove(),
      };
    },
    planLink: (language) =>
      pageUrl(deps.publicUrl, language && isSupportedLanguage(language) ? language : DEFAULT_LANGUAGE, "upgradePlan"),
    contactUrl: deps.contactUrl,
    timeoutMs: deps.timeoutMs,
    newId: randomUUID,
  });
}
