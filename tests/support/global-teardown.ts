import type S3rver from "s3rver";

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__S3RVER__ as S3rver | undefined;
  await server?.close();
}
