// The workspace's use cases bound to the real things: Postgres (workspace/repository.ts), the count of
// writes per job in Redis, the registry's queues (services/shared/src/jobs.ts) for the interview sync,
// and the fidelity reports' worker threads. services/gateway/src/app.ts builds it once and hands it to
// the routes; integration tests and fault scripts build their own on a test database.
import type { Db } from "@kikitori/shared/db";
import type { JobQueues, Redis } from "@kikitori/shared/server";
import { redisWriteCounter, workspaceRepository } from "./repository.ts";
import { WorkspaceService } from "./usecases.ts";

export { EDIT_COALESCE_MS, KEPT_EDITS, KEPT_VERSION_BYTES, WRITES_PER_JOB_PER_MINUTE } from "./usecases.ts";

export interface WorkspaceDeps {
  db: Db;
  now?: () => Date;
  /** Counts writes per job (shared by every gateway); without it writes are not limited. */
  redis?: Redis;
  redisPrefix?: string;
  limits?: { keptVersionBytes?: number; writesPerJobPerMinute?: number };
  /** Adds the job that brings the interview text up to an edited transcript (none: texts do not follow). */
  jobs?: Pick<JobQueues, "enqueue">;
}

export function createWorkspace(deps: WorkspaceDeps): WorkspaceService {
  return new WorkspaceService({
    repo: workspaceRepository(deps.db),
    writes: deps.redis ? redisWriteCounter(deps.redis, deps.redisPrefix) : undefined,
    now: deps.now,
    limits: deps.limits,
    jobs: deps.jobs,
  });
}
