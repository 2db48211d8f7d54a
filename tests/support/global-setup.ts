// Integration/e2e global setup: one S3-compatible server (s3rver) for the run, on a free loopback
// port with its data in a temp dir. Postgres and Redis are the real local servers
// (scripts/test.mjs starts them if needed); each test file makes its own database and Redis prefix.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";

/** Starts s3rver in a temp dir and points this process's S3_* settings at it. */
export async function startS3Standin(): Promise<{ server: S3rver; close: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-s3-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: dir });
  const { port } = (await server.run()) as { port: number };
  process.env.S3_ENDPOINT = `http://127.0.0.1:${port}`;
  process.env.S3_ACCESS_KEY = "S3RVER";
  process.env.S3_SECRET_KEY = "S3RVER";
  process.env.S3_REGION = "us-east-1";
  process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/postgres";
  process.env.REDIS_URL ??= "redis://127.0.0.1:6379";
  return {
    server,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function globalSetup(): Promise<void> {
  (globalThis as Record<string, unknown>).__S3RVER__ = await startS3Standin();
}
