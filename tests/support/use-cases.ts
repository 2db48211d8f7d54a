// Gateway use cases built with in-memory repositories, for fast unit tests of their rules (in the
// spirit of immich's newTestService): each `newTest…` returns the use case, its repositories (their
// state is plain maps and counters a test can read and set) and the other ports it was given.
import type { TextJob } from "@kikitori/shared";
import {
  type BillingCall,
  type BillingCaller,
  type BillingResponse,
  BillingService,
} from "../../services/gateway/src/billing/usecases.ts";
import {
  type QueuedTextJob,
  TextJobTimeout,
  type TextKind,
  type TextRunPorts,
  type TextRunRepository,
  TextRunService,
} from "../../services/gateway/src/text/usecases.ts";

/** A text_runs row as the in-memory repository keeps it. */
export interface MemoryTextRun {
  userId: string;
  kind: TextKind;
  status: string;
  result: unknown;
  errorCode: string | null;
  durationMs?: number;
}

/**
 * The month's run counts and the text_runs rows in memory, with Postgres's rules: a reservation
 * within `limit` per user and kind, `fail` only from running (and giving the count back then).
 * `failCreate` makes the next creates throw as a database outage would.
 */
export function memoryTextRunRepository(limit = 5) {
  const used = new Map<string, number>();
  const runs = new Map<string, MemoryTextRun>();
  const key = (userId: string, kind: TextKind) => `${userId}:${kind}`;
  const release = (userId: string, kind: TextKind) =>
    used.set(key(userId, kind), Math.max(0, (used.get(key(userId, kind)) ?? 0) - 1));
  const state = {
    used,
    runs,
    failCreate: false,
    /** Runs counted this month for the user and kind. */
    usedOf: (userId: string, kind: TextKind) => used.get(key(userId, kind)) ?? 0,
    /** The worker's side: stores a result while the run is running (false when it was not). */
    succeed(runId: string, result: unknown): boolean {
      const run = runs.get(runId);
      if (run?.status !== "running") return false;
      runs.set(runId, { ...run, status: "succeeded", result });
      return true;
    },
  };
  const repo: TextRunRepository = {
    reserve: async (userId, kind) => {
      if (state.usedOf(userId, kind) >= limit) return false;
      used.set(key(userId, kind), state.usedOf(userId, kind) + 1);
      return true;
    },
    release: async (userId, kind) => {
      release(userId, kind);
    },
    create: async (run) => {
      if (state.failCreate) throw new Error("db down");
      runs.set(run.id, { userId: run.userId, kind: run.kind, status: "running", result: null, errorCode: null });
    },
    fail: async (runId, status, errorCode, durationMs) => {
      const run = runs.get(runId);
      if (run?.status !== "running") return false;
      runs.set(runId, { ...run, status, errorCode, durationMs });
      release(run.userId, run.kind);
      return true;
    },
    find: async (runId) => runs.get(runId) ?? null,
  };
  return { repo, state };
}

/** What the in-memory worker does with the next queued text job. */
export type TextJobOutcome =
  | { result: unknown }
  | { error: Error; code: string }
  | { timeout: true; thenResult?: unknown };

/**
 * The text-run use case on an in-memory repository, object store and queue. The queue's worker ends
 * each job as `queue.outcome` says: a stored result, a failure it records itself (as the text-worker
 * does when a job fails for good), or no answer within the wait (optionally a result stored meanwhile).
 */
export function newTestTextRunService(over: { limit?: number; runId?: string; timeoutMs?: number } = {}) {
  const { repo, state: runs } = memoryTextRunRepository(over.limit);
  const queue = {
    outcome: { result: { summary: "short" } } as TextJobOutcome,
    inputs: new Map<string, string>(),
    queued: [] as TextJob[],
    removed: [] as string[],
    failSave: false,
    failEnqueue: false,
  };
  const settle = async (job: TextJob): Promise<unknown> => {
    const o = queue.outcome;
    if ("result" in o) {
      runs.succeed(job.runId, o.result);
      return o.result;
    }
    if ("error" in o) {
      await repo.fail(job.runId, "failed", o.code);
      throw o.error;
    }
    if (o.thenResult) runs.succeed(job.runId, o.thenResult);
    throw new TextJobTimeout("Job wait timed out before finishing");
  };
  const ports: TextRunPorts = {
    saveInput: async (key, body) => {
      if (queue.failSave) throw new Error("s3 down");
      queue.inputs.set(key, body.toString("utf8"));
    },
    enqueue: async (job): Promise<QueuedTextJob> => {
      if (queue.failEnqueue) throw new Error("redis down");
      queue.queued.push(job);
      return {
        result: () => settle(job),
        remove: async () => {
          queue.removed.push(job.runId);
        },
      };
    },
    planLink: (language) => `https://kikitori.test/${language ?? "en"}/plan`,
    contactUrl: "https://kikitori.test/contact",
    timeoutMs: over.timeoutMs ?? 4000,
    newId: () => over.runId ?? crypto.randomUUID(),
  };
  return { service: new TextRunService(repo, ports), runs, queue, ports };
}

/**
 * The billing service's API in memory: every call is recorded, and `answer` (a JSON body and status,
 * a PDF, raw text, or `unreachable`) is what the next calls get back.
 */
export function memoryBillingRepository() {
  const state = {
    calls: [] as BillingCall[],
    answer: { status: 200, json: {} } as
      | { status: number; json: unknown }
      | { status: number; pdf: Buffer; disposition?: string }
      | { status: number; text: string }
      | "unreachable",
  };
  const repo = {
    async send(call: BillingCall): Promise<BillingResponse> {
      state.calls.push(call);
      const a = state.answer;
      if (a === "unreachable") throw new TypeError("fetch failed");
      if ("pdf" in a) {
        return { status: a.status, contentType: "application/pdf", bytes: a.pdf, disposition: a.disposition ?? null };
      }
      const text = "json" in a ? JSON.stringify(a.json) : a.text;
      return { status: a.status, contentType: "application/json", text, disposition: null };
    },
  };
  return { repo, state };
}

/** The billing use cases on the in-memory billing API, with a caller whose log lines are kept. */
export function newTestBillingService(uid: string | null = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22") {
  const { repo, state: billing } = memoryBillingRepository();
  const logged: Array<{ level: "error" | "warn"; msg: string }> = [];
  const caller: BillingCaller = {
    uid,
    requestId: "req-1",
    log: {
      error: (_obj: unknown, msg?: string) => void logged.push({ level: "error", msg: msg ?? "" }),
      warn: (_obj: unknown, msg?: string) => void logged.push({ level: "warn", msg: msg ?? "" }),
    } as BillingCaller["log"],
  };
  return { service: new BillingService(repo), billing, caller, logged };
}
