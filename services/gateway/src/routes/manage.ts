import { AppError, type PlanName, type PlanQuota, QUEUES, transcriptionSnapshotSchema } from "@kikitori/shared";
import type { Db } from "@kikitori/shared/db";
import {
  chargeableSeconds,
  chargeTranscription,
  type JobQueues,
  jobLifecycle,
  type ObjectStore,
  withReservedSeconds,
} from "@kikitori/shared/server";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { jobChunks, ownJob, transcriptionCharged } from "../jobs/repository.ts";
import { isAudioExpired, toSnapshot } from "./snapshot.ts";

export interface ManageRoutesOptions {
  db: Db;
  /** The gateway's queues (services/shared/src/jobs.ts): a retry enqueues through them. */
  jobs: Pick<JobQueues, "enqueue">;
  store: ObjectStore;
  signer: TokenSigner;
  quotas: Record<PlanName, PlanQuota>;
}

/** DELETE a job (its audio, chunks and texts) and retry a failed one without uploading again. */
export const manageRoutes: FastifyPluginAsyncZod<ManageRoutesOptions> = async (app, opts) => {
  const { db, store } = opts;
  const guard = requireAuth(opts.signer);
  const params = z.object({ jobId: z.string().max(64) });

  app.delete(
    "/transcriptions/:jobId",
    {
      onRequest: guard,
      schema: {
        tags: ["transcription"],
        summary: "Delete a job: its audio and pieces leave the object store, its texts the database",
        security: [{ bearer: [] }],
        params,
        response: { 204: z.null(), ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      const uid = assertUid(req, undefined);
      const job = await ownJob(db, uid, req.params.jobId);
      const chunks = await jobChunks(db, job.id);
      // Live text that already went out over the socket was delivered: deleting the job before its
      // transcript is charged still charges the seconds of recording it covered, under the job's own
      // key, so a transcript completing meanwhile is never charged twice.
      // Chunks go out in order: what went out covers the recording up to the last published chunk's end.
      const delivered = Math.max(0, ...chunks.filter((c) => c.publishedAt).map((c) => c.endSeconds));
      if (delivered > 0) {
        const seconds = Math.min(Math.ceil(delivered), chargeableSeconds(job.durationSeconds));
        if (await chargeTranscription(db, uid, job.id, seconds)) {
          req.log.info({ jobId: job.id, seconds }, "live text delivered before the delete charged");
        }
      }
      // The row first: a worker still on the job then finds nothing and stops; the objects follow.
      await jobLifecycle.remove(db, job.id);
      const keys = [job.audioKey, ...chunks.map((c) => c.objectKey)];
      const failed = (await Promise.allSettled(keys.map((k) => store.remove(k)))).filter(
        (r) => r.status === "rejected",
      );
      if (failed.length) req.log.warn({ jobId: job.id, failed: failed.length }, "some objects could not be removed");
      req.log.info({ jobId: job.id, objects: keys.length }, "transcription deleted");
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/transcriptions/:jobId/retry",
    {
      onRequest: guard,
      schema: {
        tags: ["transcription"],
        summary:
          "Run a failed job again from where it stopped (finished chunks are kept; usage is never charged twice)",
        security: [{ bearer: [] }],
        params,
        response: { 202: transcriptionSnapshotSchema, ...errorResponses(401, 402, 404, 409, 410) },
      },
    },
    async (req, reply) => {
      const uid = assertUid(req, undefined);
      const job = await ownJob(db, uid, req.params.jobId);
      if (job.status !== "failed") throw new AppError("JOB_NOT_READY", "Only a failed job can be retried");
      const atCorrection = job.transcription !== null && job.transcriptionTime !== null;
      if (!atCorrection) {
        if (isAudioExpired(job)) throw new AppError("AUDIO_EXPIRED", "The audio has expired and was deleted");
        // Not charged yet (charging happens when the transcript is complete): the minutes must still be
        // there, and are held again (a failed job holds none) while it runs.
        const charged = await transcriptionCharged(db, job.id);
        const seconds = chargeableSeconds(job.durationSeconds);
        const held =
          charged ||
          (await withReservedSeconds(db, uid, seconds, opts.quotas, (tx) =>
            jobLifecycle.holdForRetry(tx, job.id, seconds),
          ));
        if (!held) throw new AppError("QUOTA_EXCEEDED", "Not enough minutes left this month for this recording");
      }
      if (!(await jobLifecycle.retry(db, job.id, atCorrection))) {
        if (!atCorrection) await jobLifecycle.releaseQuota(db, job.id);
        throw new AppError("JOB_NOT_READY", "The job changed meanwhile; try again");
      }
      // A fresh BullMQ id: the failed run's id is still in the queue's failed set.
      const runId = `${job.id}-retry-${Date.now()}`;
      if (atCorrection) {
        await opts.jobs.enqueue(
          QUEUES.correction,
          "correct",
          { jobId: job.id, userId: uid, correlationId: job.correlationId },
          { jobId: runId },
        );
      } else {
        await opts.jobs.enqueue(
          QUEUES.transcription,
          "transcribe",
          { jobId: job.id, userId: uid, audioKey: job.audioKey, correlationId: job.correlationId },
          { jobId: runId },
        );
      }
      req.log.info({ jobId: job.id, stage: atCorrection ? "correction" : "transcription" }, "job retried");
      const fresh = await ownJob(db, uid, job.id);
      return reply.code(202).send(toSnapshot(fresh));
    },
  );
};
