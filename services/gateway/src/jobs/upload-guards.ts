import { AppError } from "@kikitori/shared";
import type { Redis } from "@kikitori/shared/server";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * What keeps an upload from holding the gateway: a body that stalls or drips is cut (408
 * REQUEST_TIMEOUT), one that ends early is answered (400 REQUEST_INCOMPLETE), malformed multipart is a
 * 400, each user has a few uploads in flight at most (429), and each gateway decodes a few at a time.
 */
export interface UploadLimits {
  /** Longest gap between two pieces of the body. */
  idleMs: number;
  /** Longest the whole body may take to arrive. */
  totalMs: number;
}

/**
 * Watches the body of one request while `work` reads it. `guard` settles with the work, or rejects as
 * soon as the body stalls, takes too long or the client goes away; the connection is then closed once
 * the answer is out, which ends the work too. `settled` resolves once the work is over either way
 * (only then may its temp files go).
 */
export class BodyWatch {
  settled: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();
  /** Aborted when the watch gives up: pass it to the pipelines reading the body, so they end at once. */
  readonly signal = this.abort.signal;
  /** Gives up on the body with `err` (set while guarding). */
  private giveUp: ((err: AppError) => void) | null = null;
  private refusal: AppError | null = null;
  constructor(
    private readonly req: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly limits: UploadLimits,
  ) {}

  /**
   * Refuses the body with `err` (answered, then the connection dropped), as the watch does when it
   * stalls; ignored once the body has been read.
   */
  refuse(err: AppError): void {
    if (this.giveUp) this.giveUp(err);
    else this.refusal ??= err;
  }

  guard<T>(work: Promise<T>): Promise<T> {
    // Over when the work is, or shortly after the watch gave up: a client gone before the parser saw
    // its body leaves the parser waiting for good, and the temp folder must not wait with it.
    this.settled = Promise.race([
      work.then(
        () => undefined,
        () => undefined,
      ),
      new Promise<void>((resolve) =>
        this.signal.addEventListener("abort", () => setTimeout(resolve, GIVE_UP_GRACE_MS).unref(), { once: true }),
      ),
    ]);
    const raw = this.req.raw;
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = () => {
        done = true;
        clearTimeout(idle);
        clearTimeout(total);
        raw.off("data", onData);
        raw.off("end", onEnd);
        raw.off("aborted", onAborted);
        raw.off("close", onClose);
      };
      const fail = (err: AppError) => {
        if (done) return;
        finish();
        this.giveUp = null;
        // The rest of the body is not wanted: answer, then drop the connection (which ends `work`).
        this.reply.header("connection", "close");
        this.reply.raw.once("finish", () => raw.socket?.destroy());
        this.reply.raw.once("close", () => raw.socket?.destroy());
        this.abort.abort(err);
        reject(err);
      };
      const timeout = (what: string) =>
        new AppError("REQUEST_TIMEOUT", `The upload ${what}; please try again on a steadier connection`);
      // Once the whole body is in, only the parser is left: if it does not finish soon, the body was
      // malformed (a multipart body without its closing boundary), not slow.
      const idle = setTimeout(
        () => fail(raw.complete ? incomplete() : timeout(`stalled for ${Math.round(this.limits.idleMs / 1000)} s`)),
        this.limits.idleMs,
      );
      const total = setTimeout(
        () => fail(timeout(`took longer than ${Math.round(this.limits.totalMs / 1000)} s`)),
        this.limits.totalMs,
      );
      const onData = () => idle.refresh();
      const onEnd = () => {
        clearTimeout(idle);
        setTimeout(() => fail(incomplete()), Math.min(this.limits.idleMs, END_GRACE_MS)).unref();
      };
      const onAborted = () => fail(incomplete());
      const onClose = () => {
        if (!raw.complete) fail(incomplete());
      };
      raw.on("data", onData);
      raw.on("end", onEnd);
      raw.on("aborted", onAborted);
      raw.on("close", onClose);
      this.giveUp = fail;
      if (this.refusal) fail(this.refusal);
      // The client may have gone before this handler ran (its events are past).
      if (raw.destroyed && !raw.complete) onAborted();
      work.then(
        (v) => {
          if (done) return;
          finish();
          this.giveUp = null;
          resolve(v);
        },
        (err) => {
          if (done) return;
          finish();
          this.giveUp = null;
          reject(multipartError(err, raw.complete));
        },
      );
    });
  }
}

/** How long the reading may take to wind down after the watch gave up. */
const GIVE_UP_GRACE_MS = 1_000;

/** How long the parser may take after the last byte of the body arrived. */
const END_GRACE_MS = 3_000;

const incomplete = () =>
  new AppError("REQUEST_INCOMPLETE", "The upload ended before it was complete; please send it again");

/**
 * Errors of the multipart parser (busboy) carry no code: a body that ends early or has no closing
 * boundary is REQUEST_INCOMPLETE, other malformed multipart is VALIDATION_FAILED. AppErrors and
 * errors with a code (Fastify's FST_* limits, file-system errors) pass unchanged.
 */
export function multipartError(err: unknown, bodyComplete: boolean): unknown {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string };
  if (e?.code === "ERR_STREAM_PREMATURE_CLOSE" && !bodyComplete) return incomplete();
  if (e?.code) return err;
  const message = String(e?.message ?? err);
  if (/terminated early|unexpected end/i.test(message)) return incomplete();
  return new AppError("VALIDATION_FAILED", `The multipart body could not be read: ${message}`);
}

/** A multipart request must name its boundary; without one the parser cannot even start. */
export function assertMultipartBoundary(contentType: string | undefined): void {
  if (!/;\s*boundary=("[^"]+"|[^\s;]+)/i.test(contentType ?? "")) {
    throw new AppError("VALIDATION_FAILED", "multipart/form-data needs a boundary parameter in Content-Type");
  }
}

/**
 * Uploads in flight per user, counted in Redis (so across every gateway). A count left behind by a
 * gateway that died mid-upload expires after `ttlSeconds`.
 */
export class UploadSlots {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly max: number,
    private readonly ttlSeconds: number,
  ) {}

  /** Takes one of the user's slots (429 RATE_LIMITED when all are taken); returns its release. */
  async acquire(uid: string): Promise<() => Promise<void>> {
    const key = `${this.prefix}:uploads-in-flight:${uid}`;
    const res = (await this.redis.multi().incr(key).expire(key, this.ttlSeconds).exec()) as [
      [Error | null, number],
      [Error | null, number],
    ];
    const count = Number(res[0][1]);
    if (count > this.max) {
      await this.redis.decr(key);
      throw new AppError("RATE_LIMITED", `At most ${this.max} uploads at a time; wait for one to finish`, {
        details: { retryAfterSeconds: 5 },
      });
    }
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.redis.decr(key).catch(() => undefined);
    };
  }
}
