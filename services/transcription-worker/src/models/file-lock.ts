import { readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";

const LOCK_TOUCH_MS = 5_000;
const LOCK_STALE_MS = 60_000;
const LOCK_POLL_MS = 500;

/**
 * One download of a file at a time, also across processes sharing the directory (several worker
 * replicas pulling into one volume): `<file>.lock` is created exclusively and touched while held.
 * A lock not touched for LOCK_STALE_MS, or held by a process of this host that is gone, is taken over.
 */
export async function lock(
  file: string,
  opts: { onWait?: (holder: string) => void; signal?: AbortSignal },
): Promise<() => Promise<void>> {
  const lockFile = `${file}.lock`;
  const me = `${process.pid}@${os.hostname()}`;
  let told = false;
  for (;;) {
    try {
      await writeFile(lockFile, `${me}\n`, { flag: "wx" });
      const touch = setInterval(() => {
        const now = new Date();
        utimes(lockFile, now, now).catch(() => {});
      }, LOCK_TOUCH_MS);
      touch.unref();
      return async () => {
        clearInterval(touch);
        await rm(lockFile, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const st = await stat(lockFile).catch(() => null);
    const holder = (await readFile(lockFile, "utf8").catch(() => "")).trim();
    if (st && (Date.now() - st.mtimeMs > LOCK_STALE_MS || holderIsGone(holder))) {
      await rm(lockFile, { force: true });
      continue;
    }
    if (st && !told) {
      told = true;
      opts.onWait?.(holder || "another process");
    }
    await sleep(LOCK_POLL_MS, undefined, { signal: opts.signal });
  }
}

/** True when `pid@host` names a process of this host that no longer runs. */
function holderIsGone(holder: string): boolean {
  const m = /^(\d+)@(.+)$/.exec(holder);
  if (!m || m[2] !== os.hostname() || Number(m[1]) === process.pid) return false;
  try {
    process.kill(Number(m[1]), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}
