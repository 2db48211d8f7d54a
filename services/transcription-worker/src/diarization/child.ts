import { fork, type Serializable } from "node:child_process";
import { fileURLToPath } from "node:url";

type Reply<T> = { ok: true; value: T } | { ok: false; error: string };

/** Compiled to JavaScript (the images' esbuild bundles, scripts/build-services.mjs) rather than run as TypeScript. */
const COMPILED = import.meta.url.endsWith(".js");

/**
 * A forked child's module by its base name: `<name>.ts` beside `base` when run as TypeScript (tsx, jest),
 * `<name>.js` beside the bundle when compiled (each child is its own bundle in the same directory).
 */
export function childModule(name: string, base: string): URL {
  return new URL(`./${name}${COMPILED ? ".js" : ".ts"}`, base);
}

/** Node flags of a forked child: the tsx loader for TypeScript, none for compiled JavaScript. */
export const CHILD_EXEC_ARGV: readonly string[] = COMPILED ? [] : ["--import", "tsx"];

/**
 * Runs one request in a forked TypeScript child (`serveOnce` on the other side) and resolves with its
 * answer. The child is SIGKILLed when `signal` aborts (the promise then rejects with the signal's
 * reason), so native or long pure-JS work never blocks the caller's event loop and can be stopped.
 */
export function runChild<T>(file: URL, input: unknown, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const child = fork(fileURLToPath(file), [], {
      execArgv: [...CHILD_EXEC_ARGV],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
    });
    let stderr = "";
    let reply: Reply<T> | undefined;
    child.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    child.on("message", (m) => {
      reply = m as Reply<T>;
    });
    const kill = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", kill, { once: true });
    child.on("error", (err) => {
      if (child.pid === undefined) {
        signal?.removeEventListener("abort", kill);
        reject(err);
      }
    });
    child.once("close", (code, sig) => {
      signal?.removeEventListener("abort", kill);
      if (signal?.aborted) return reject(signal.reason);
      if (reply?.ok) return resolve(reply.value);
      if (reply) return reject(new Error(reply.error));
      reject(
        new Error(`${file.pathname.split("/").pop()} ended (${sig ?? `exit ${code}`}): ${stderr.trim().slice(-500)}`),
      );
    });
    child.send(input as Serializable);
  });
}

/** The child's side: takes one request, answers with fn's value or its error, and exits. */
export function serveOnce<I, T>(fn: (input: I) => Promise<T> | T): void {
  process.once("message", async (input: I) => {
    let reply: Reply<T>;
    try {
      reply = { ok: true, value: await fn(input) };
    } catch (err) {
      reply = { ok: false, error: (err as Error).message };
    }
    process.send?.(reply, () => process.exit(0));
  });
  process.on("disconnect", () => process.exit(0));
}
