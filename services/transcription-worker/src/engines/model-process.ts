import { type ChildProcess, fork } from "node:child_process";
import { AppError } from "@kikitori/shared";
import { CHILD_EXEC_ARGV } from "../diarization/child.ts";

/**
 * The messages of a long-lived model child: at start {type:"ready", info} or {type:"fatal", message};
 * per request {type:"result", id, value} or {type:"error", id, message}.
 */
interface ChildMessage<T> {
  type: "ready" | "fatal" | "result" | "error";
  id?: number;
  message?: string;
  value?: T;
  info?: unknown;
}

interface Pending<T> {
  id: number;
  resolve: (v: T) => void;
  reject: (err: Error) => void;
}

export interface ModelProcessOptions {
  /** The child module (childModule(...)). */
  module: URL;
  /** Environment added for the child (its model and threads). */
  env: Record<string, string>;
  /** Named in errors ("parakeet"). */
  label: string;
  /** A request taking longer than this kills the process and fails (retried by the queue). */
  timeoutMs: number;
}

/**
 * One forked child that loads its model once and answers one request at a time. Native recognizers
 * block their thread and cannot be interrupted, so a time-out, an abort or shutdown SIGKILLs the
 * process; the next request starts a fresh one. Requests wait their turn.
 */
export class ModelProcess<Req, Res> {
  private child: ChildProcess | null = null;
  private ready: Promise<unknown> | null = null;
  private pending: Pending<Res> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;

  constructor(private readonly opts: ModelProcessOptions) {}

  private start(): Promise<unknown> {
    const child = fork(this.opts.module, [], {
      execArgv: [...CHILD_EXEC_ARGV],
      env: { ...process.env, ...this.opts.env },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
    });
    this.child = child;
    let stderr = "";
    child.stderr?.on("data", (b: Buffer) => {
      stderr = (stderr + b.toString()).slice(-4000);
    });
    return new Promise((resolve, reject) => {
      child.on("message", (msg: ChildMessage<Res>) => {
        if (msg.type === "ready") resolve(msg.info);
        else if (msg.type === "fatal") reject(new Error(msg.message));
        else if (this.pending && this.pending.id === msg.id) {
          const p = this.pending;
          this.pending = null;
          if (msg.type === "result") p.resolve(msg.value as Res);
          else
            p.reject(new AppError("TRANSCRIPTION_FAILED", `${this.opts.label}: ${msg.message}`, { retryable: true }));
        }
      });
      child.on("exit", (code, signal) => {
        const tail = stderr.trim() ? `: ${stderr.trim().split("\n").slice(-3).join(" | ")}` : "";
        const why = `${this.opts.label} process ended (${signal ?? `exit ${code}`})${tail}`;
        reject(new Error(why));
        if (this.child !== child) return; // killed on purpose: kill() settled everything already
        this.child = null;
        this.ready = null;
        const p = this.pending;
        this.pending = null;
        p?.reject(new AppError("TRANSCRIPTION_FAILED", why, { retryable: true }));
      });
    });
  }

  /** Starts the child and waits until its model is loaded; resolves with what it says of it. */
  ensureReady(): Promise<unknown> {
    if (!this.ready) {
      this.ready = this.start();
      this.ready.catch(() => {
        this.ready = null;
      });
    }
    return this.ready;
  }

  /** Sends one request (after those before it), killing the child on time-out or abort. */
  run(req: Req, signal?: AbortSignal): Promise<Res> {
    const turn = this.queue.then(() => this.runNow(req, signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async runNow(req: Req, signal?: AbortSignal): Promise<Res> {
    if (signal?.aborted) throw new AppError("TRANSCRIPTION_FAILED", "transcription cancelled", { retryable: true });
    await this.ensureReady();
    const child = this.child;
    if (!child)
      throw new AppError("TRANSCRIPTION_FAILED", `${this.opts.label} process not running`, { retryable: true });
    const id = this.nextId++;
    return new Promise<Res>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new AppError("TRANSCRIPTION_FAILED", `${this.opts.label} took longer than ${this.opts.timeoutMs} ms`, {
            retryable: true,
          }),
        );
        this.kill();
      }, this.opts.timeoutMs);
      const onAbort = () => {
        reject(new AppError("TRANSCRIPTION_FAILED", "transcription cancelled", { retryable: true }));
        this.kill();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      this.pending = {
        id,
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      child.send({ type: "run", id, ...req });
    });
  }

  /** The child's process id while it runs (tests check it is gone after an abort). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Stops the child now (SIGKILL) and forgets it; a pending request fails. */
  kill(): void {
    const child = this.child;
    this.child = null;
    this.ready = null;
    const p = this.pending;
    this.pending = null;
    child?.kill("SIGKILL");
    p?.reject(new AppError("TRANSCRIPTION_FAILED", `${this.opts.label} process stopped`, { retryable: true }));
  }
}
