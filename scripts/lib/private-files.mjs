// Files at rest under var/ are the owner's only: directories 0700, files 0600. Secrets (JWT and
// object-store keys), the object store's data and the mail outbox (reset and verification links)
// must not be readable by other local users.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Makes `dir` (and missing parents) and sets it to 0700, whatever the umask. */
export function makePrivateDir(dir) {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Takes group and other access away from everything under `dir` (files written before this rule). */
export function tightenTree(dir) {
  const walk = (p) => {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o077) !== 0) chmodSync(p, st.mode & 0o700);
      for (const name of readdirSync(p)) walk(path.join(p, name));
    } else if ((st.mode & 0o077) !== 0) {
      chmodSync(p, st.mode & 0o700);
    }
  };
  walk(dir);
}
