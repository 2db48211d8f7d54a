import type { startS3Standin } from "./global-setup.ts";

export default async function globalTeardown(): Promise<void> {
  const standin = (globalThis as Record<string, unknown>).__S3RVER__ as
    | Awaited<ReturnType<typeof startS3Standin>>
    | undefined;
  await standin?.close();
}
