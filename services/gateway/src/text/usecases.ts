// The text-run use case (summaries, titles and headings): reserve one run of the month's quota,
// record the run, store its input, queue the job, wait for its result, and compensate whatever way
// it ends, so only results are charged. The route (text/routes.ts) parses, checks the rules and
// authorises; text/repository.ts keeps the counts and runs in Postgres; text/adapters.ts binds the
// object store and the queue; the unit tests use in-memory ones (tests/support/use-cases.ts).
import {
  AppError,
  ERROR_CODES,
  type ErrorCode,
  type SummaryResult,
  type TextJob,
  type TitlesResult,
} from "@kikitori/shared";
import { type Logger, TEXT_RUN_STATUS, textInputKey } from "@kikitori/shared/server";

export type TextKind = TextJob["kind"];
export type TextResult = SummaryResult | TitlesResult;

/** A queued text job, as the use case waits for it. */
export interface QueuedTextJob {
  /** The job's return value; rejects with TextJobTimeout when it has not finished within `ms`. */
  result(ms: number): Promise<unknown>;
  /** Takes the job out of the queue. */
  remove(): Promise<void>;
}

/** The wait for a job's result ran out (the job may still be running). */
export class TextJobTimeout extends Error {
  override readonly name = "TextJobTimeout";
}

/** The month's run counts and the text_runs rows (text/repository.ts in Postgres). */
export interface TextRunRepository {
  /** Reserves one run of the kind in the user's month (false: used up). */
  reserve(userId: string, kind: TextKind): Promise<boolean>;
  /** Gives a reserved run back. */
  release(userId: string, kind: TextKind): Promise<void>;
  /** A new run, status running. */
  create(run: { id: string; userId: string; kind: TextKind; inputChars: number }): Promise<void>;
  /** Ends a running run without a result, giving its count back; false when it was not running any more. */
  fail(runId: string, status: "failed" | "timed_out", errorCode: string, durationMs?: number): Promise<boolean>;
  find(runId: string): Promise<{ status: string; result: unknown; errorCode: string | null } | null>;
}

/** What the use case needs besides its repository; text/adapters.ts has the real ones. */
export interface TextRunPorts {
  /** Stores the run's input as JSON (the job carries only its key). */
  saveInput(key: string, body: Buffer): Promise<void>;
  /** Queues the job (its id is the run id) on the registry's text queue. */
  enqueue(job: TextJob): Promise<QueuedTextJob>;
  /** The plan page in the language asked for (the link of QUOTA_EXCEEDED). */
  planLink(language?: string): string;
  contactUrl: string;
  /** How long a call waits for its job before GENERATION_TIMEOUT. */
  timeoutMs: number;
  newId(): string;
}

export interface TextRunRequest {
  userId: string;
  kind: TextKind;
  /** The engine's input (summaryInputSchema or titlesInputSchema in services/shared/src/text.ts). */
  input: object;
  /** Characters of the source text (kept on the run). */
  inputChars: number;
  /** The language asked for (the plan link's language). */
  language?: string;
  correlationId: string;
  log: Pick<Logger, "error">;
}

export class TextRunService {
  constructor(
    private readonly repo: TextRunRepository,
    private readonly ports: TextRunPorts,
  ) {}

  /**
   * One run, end to end. A run that fails or times out gives its reservation back (failTextRun is
   * guarded on status running, so it happens once); a result that arrives after the time-out is
   * dropped by the worker, not charged.
   */
  async run(req: TextRunRequest): Promise<TextResult> {
    const { repo, ports: p } = this;
    const { userId: uid, kind } = req;
    if (!(await repo.reserve(uid, kind))) {
      throw new AppError(
        "QUOTA_EXCEEDED",
        kind === "summary"
          ? "This month's summaries are used up. Upgrade your plan to continue."
          : "This month's title and heading generations are used up. Upgrade your plan to continue.",
        { link: p.planLink(req.language) },
      );
    }
    const runId = p.newId();
    const inputKey = textInputKey(uid, runId);
    let job: QueuedTextJob;
    try {
      await repo.create({ id: runId, userId: uid, kind, inputChars: req.inputChars });
    } catch (err) {
      await repo.release(uid, kind);
      throw err;
    }
    try {
      await p.saveInput(inputKey, Buffer.from(JSON.stringify(req.input), "utf8"));
      job = await p.enqueue({ runId, userId: uid, kind, inputKey, correlationId: req.correlationId });
    } catch (err) {
      await repo.fail(runId, "failed", "SERVICE_UNAVAILABLE");
      req.log.error({ err, runId }, "text job could not be enqueued");
      throw new AppError("SERVICE_UNAVAILABLE", "The service is temporarily unavailable. Please try again shortly.");
    }

    try {
      return (await job.result(p.timeoutMs)) as TextResult;
    } catch (err) {
      if (err instanceof TextJobTimeout) {
        // Stop waiting: end the run (the quota goes back). A result arriving later is dropped.
        if (await repo.fail(runId, "timed_out", "GENERATION_TIMEOUT", p.timeoutMs)) {
          await job.remove().catch(() => undefined);
          throw new AppError("GENERATION_TIMEOUT", "Generation took too long. Please try again.", {
            link: p.contactUrl,
          });
        }
      } else {
        // The worker normally ends the run itself; make sure the reservation is given back anyway.
        await repo.fail(runId, "failed", "GENERATION_FAILED");
      }
      const row = await repo.find(runId);
      if (row?.status === TEXT_RUN_STATUS.succeeded && row.result) return row.result as TextResult;
      throw failureError(row?.errorCode, err, kind, p.contactUrl);
    }
  }
}

/** The error a failed run answers with: the worker's code when it is one of ours, else GENERATION_FAILED. */
export function failureError(
  code: string | null | undefined,
  err: unknown,
  kind: TextKind,
  contactUrl: string,
): AppError {
  const known = code && code in ERROR_CODES ? (code as ErrorCode) : null;
  const fallback = kind === "summary" ? "Failed to generate the summary." : "Failed to generate titles and headings.";
  if (known && known !== "INTERNAL" && known !== "GENERATION_FAILED") {
    const message = err instanceof Error && err.message ? err.message : fallback;
    return new AppError(known, message, known === "SERVICE_UNAVAILABLE" ? {} : { link: contactUrl });
  }
  return new AppError("GENERATION_FAILED", fallback, { link: contactUrl });
}
