// The workspace's store, below its use cases (usecases.ts): the job and its kept versions in Postgres
// (the job's row written through the job lifecycle module, the versions through job-versions), and
// the count of writes per job in Redis.
import type { InterviewSync } from "@kikitori/shared";
import { type Db, Prisma } from "@kikitori/shared/db";
import { type JobRow, jobLifecycle, jsonColumn, keepVersion, type Redis } from "@kikitori/shared/server";
import { ownJob } from "../jobs/repository.ts";
import type { WorkspaceRepository, WriteCounter } from "./usecases.ts";

function syncColumn(sync: InterviewSync | null): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return sync === null ? Prisma.DbNull : (sync as unknown as Prisma.InputJsonValue);
}

export function workspaceRepository(db: Db): WorkspaceRepository {
  return {
    ownJob: (uid, jobId) => ownJob(db, uid, jobId),

    // In one transaction: the row moves to version + 1 only while it is still at job.version (a
    // compare-and-set in one UPDATE), and the version is kept with it.
    writeVersion: (job: JobRow, next, v, sync) =>
      db.$transaction(async (tx) => {
        const updated = await jobLifecycle.edit(tx, job.id, job.version, {
          title: next.title,
          transcription: next.transcription,
          segments: jsonColumn(next.segments),
          rewrittenText: next.rewrittenText,
          speakers: jsonColumn(next.speakers),
          ...(sync !== undefined ? { interviewSync: syncColumn(sync) } : {}),
          at: v.at,
        });
        if (!updated) {
          const current = await tx.transcriptionJob.findUnique({ where: { id: job.id }, select: { version: true } });
          return { saved: null, current: current?.version ?? null };
        }
        await keepVersion(tx, job, next, v, v.keptBytes);
        return { saved: await tx.transcriptionJob.findUniqueOrThrow({ where: { id: job.id } }), current: v.version };
      }),

    findVersion: (jobId, version) => db.transcriptVersion.findUnique({ where: { jobId_version: { jobId, version } } }),

    versions: (jobId) => db.transcriptVersion.findMany({ where: { jobId }, orderBy: { version: "desc" } }),
  };
}

/** A fixed one-minute window per job in Redis (shared by every gateway): the writes so far, and its seconds left. */
export function redisWriteCounter(redis: Redis, redisPrefix = "kikitori"): WriteCounter {
  return {
    async count(jobId) {
      const key = `${redisPrefix}:rl:job-write:${jobId}`;
      const [[, count], , [, ttl]] = (await redis.multi().incr(key).expire(key, 60, "NX").ttl(key).exec()) as [
        [Error | null, number],
        [Error | null, number],
        [Error | null, number],
      ];
      return { count, ttl };
    },
  };
}
