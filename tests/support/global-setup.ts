// Integration/e2e global setup: one S3-compatible server (s3rver behind a Signature V4 check) for the
// run, on a free loopback port with its data in a temp dir and an access key and secret made for the
// run. Postgres and Redis are the real local servers (scripts/test.mjs starts them if needed); each
// test file makes its own database and Redis prefix.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedS3 } from "../../scripts/lib/embedded-s3.ts";

/** Starts the embedded object store in a temp dir and points this process's S3_* settings at it. */
export async function startS3Standin(): Promise<{ port: number; close: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-s3-"));
  const accessKey = `test-${randomBytes(8).toString("hex")}`;
  const secretKey = randomBytes(32).toString("base64url");
  const server = await startEmbeddedS3({ port: 0, address: "127.0.0.1", directory: dir, accessKey, secretKey });
  process.env.S3_ENDPOINT = `http://127.0.0.1:${server.port}`;
  process.env.S3_ACCESS_KEY = accessKey;
  process.env.S3_SECRET_KEY = secretKey;
  process.env.S3_REGION = "us-east-1";
  process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/postgres";
  process.env.REDIS_URL ??= "redis://127.0.0.1:6379";
  return {
    port: server.port,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function globalSetup(): Promise<void> {
  (globalThis as Record<string, unknown>).__S3RVER__ = await startS3Standin();
}
