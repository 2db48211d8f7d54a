import { createHash } from "node:crypto";
import { Transform } from "node:stream";

/**
 * Passes a stream through while taking its SHA-256 (the object store signs a PUT's payload hash:
 * taken as the bytes arrive, the stored file is not read a second time to hash it).
 */
export function sha256Tap(): Transform & { hex: () => string } {
  const hash = createHash("sha256");
  let hex: string | null = null;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      cb(null, chunk);
    },
  }) as Transform & { hex: () => string };
  t.hex = () => {
    hex ??= hash.digest("hex");
    return hex;
  };
  return t;
}
