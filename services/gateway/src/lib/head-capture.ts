import { Transform } from "node:stream";

/** How many first bytes of an upload are kept for sniffing its format. */
export const HEAD_BYTES = 4096;

/** Keeps the first bytes of a stream (for format sniffing) while passing everything through. */
export function headCapture(): Transform & { head: () => Buffer } {
  const chunks: Buffer[] = [];
  let kept = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (kept < HEAD_BYTES) {
        chunks.push(chunk.subarray(0, HEAD_BYTES - kept));
        kept += Math.min(chunk.length, HEAD_BYTES - kept);
      }
      cb(null, chunk);
    },
  }) as Transform & { head: () => Buffer };
  t.head = () => Buffer.concat(chunks);
  return t;
}
