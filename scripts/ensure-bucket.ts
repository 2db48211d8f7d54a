// One-shot bucket init for the compose stack (service `bucket-init`) and for any cluster whose object
// store starts empty: creates S3_BUCKET on S3_ENDPOINT through the same S3 client the services use
// (idempotent: an existing bucket is left alone), retrying while the store is still starting.
//   node --import tsx scripts/ensure-bucket.ts
// S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET, S3_REGION as the services read them;
// ENSURE_BUCKET_TIMEOUT_MS (default 120000) bounds the wait, after which the process exits 1.
import { S3ObjectStore } from "../services/shared/src/server/storage.ts";

const need = (name: string): string => {
  const v = process.env[name];
  if (!v) {
    console.error(`[bucket] ${name} is not set`);
    process.exit(2);
  }
  return v;
};

const store = new S3ObjectStore({
  S3_ENDPOINT: need("S3_ENDPOINT"),
  S3_ACCESS_KEY: need("S3_ACCESS_KEY"),
  S3_SECRET_KEY: need("S3_SECRET_KEY"),
  S3_BUCKET: need("S3_BUCKET"),
  S3_REGION: process.env.S3_REGION || "us-east-1",
});
const deadline = Date.now() + Number(process.env.ENSURE_BUCKET_TIMEOUT_MS ?? 120_000);
for (;;) {
  try {
    await store.ensureBucket();
    await store.ping();
    console.log(`[bucket] ${process.env.S3_BUCKET} is ready on ${process.env.S3_ENDPOINT}`);
    process.exit(0);
  } catch (err) {
    if (Date.now() > deadline) {
      console.error(`[bucket] giving up: ${(err as Error).message}`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 2_000));
  }
}
