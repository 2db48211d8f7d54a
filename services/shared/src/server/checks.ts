import type { Check } from "./lifecycle.ts";
import type { ObjectStore } from "./storage.ts";

/**
 * Readiness check for the object store that also creates the bucket the first time the store is
 * reachable, so a process that booted while S3 was down becomes ready once it is back.
 */
export function objectStoreCheck(store: ObjectStore): Check & { ensured: () => boolean } {
  let ensured = false;
  const check = async () => {
    if (!ensured) {
      await store.ensureBucket();
      ensured = true;
    }
    await store.ping();
  };
  return Object.assign(check, { ensured: () => ensured });
}
