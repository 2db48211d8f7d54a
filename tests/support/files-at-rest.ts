// What other local users could read under a folder, and the embedded object store as `npm start` runs
// it (scripts/objectstore.mjs, its own process), for the checks of files at rest.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { createObjectStore, type ObjectStore } from "@kikitori/shared/server";
import { freePort, REPO_ROOT } from "../infra/service-process.ts";

/** Every path under `dir` (itself included) with any group or other permission bit, with its mode. */
export function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) found.push(`${path.relative(dir, p) || "."} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
  };
  walk(dir);
  return found;
}

/** scripts/objectstore.mjs on a free port over `directory`, with a fresh key pair; `store` talks to it. */
export async function startObjectStoreProcess(
  directory: string,
): Promise<{ store: ObjectStore; stop: () => Promise<void> }> {
  const port = await freePort();
  const accessKey = `files-${randomBytes(4).toString("hex")}`;
  const secretKey = randomBytes(24).toString("hex");
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/objectstore.mjs"], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      EMBEDDED_S3_PORT: String(port),
      EMBEDDED_S3_DIR: directory,
      S3_BUCKET: "files-at-rest",
      S3_ACCESS_KEY: accessKey,
      S3_SECRET_KEY: secretKey,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes("s3rver listening")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.once("exit", (code) => reject(new Error(`objectstore exited (${code}): ${output.slice(-2000)}`)));
  });
  const store = createObjectStore({
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_ACCESS_KEY: accessKey,
    S3_SECRET_KEY: secretKey,
    S3_BUCKET: "files-at-rest",
    S3_REGION: "us-east-1",
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { store, stop };
}
