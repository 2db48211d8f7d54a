// The text-run use case bound to the real things: Postgres (text/repository.ts), the object store
// for the run's input, and the registry's text queue (services/shared/src/jobs.ts) with its events.
// services/gateway/src/app.ts builds it once and hands it to the routes.
import { randomUUID } from "node:crypto";
import {
  DEFAULT_LANGUAGE,
  isSupportedLanguage,
  type PlanName,
  type PlanQuota,
  pageUrl,
  QUEUES,
} from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import type { JobQueues, Logger, ObjectStore } from "@kikitori/shared/server";
import { textRunRepository } from "./repository.ts";
import { TextJobTimeout, TextRunService } from "./usecases.ts";

/** BullMQ's words when `waitUntilFinished` runs out of time. */
const isWaitTimeout = (err: unknown): err is Error =>
  err instanceof Error && /timed out before finishing/.test(err.message);

export async function createTextRunService(deps: {
  db: Db;
  store: ObjectStore;
  jobs: Pick<JobQueues, "enqueue" | "events">;
  quotas: Record<PlanName, PlanQuota>;
  timeoutMs: number;
  publicUrl: string;
  contactUrl: string;
  logger: Pick<Logger, "warn">;
}): Promise<TextRunService> {
  // Listen before the first request (events before the listener starts would be missed), without
  // holding the gateway's start hostage to Redis.
  const events = deps.jobs.events(QUEUES.text);
  await Promise.race([events.waitUntilReady(), new Promise((r) => setTimeout(r, 5_000).unref())]).catch((err) =>
    deps.logger.warn({ err }, "text queue events not ready yet"),
  );
  return new TextRunService(textRunRepository(deps.db, deps.quotas), {
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
