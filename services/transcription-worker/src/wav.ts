/**
 * Reads a 16-bit PCM WAV (as our ffmpeg decode writes it: 16 kHz mono) into float samples in [-1, 1).
 * Walks the RIFF chunks, so a LIST or fact chunk before `data` is skipped. Pure.
 */
export function readWavMono16k(buf: Buffer): Float32Array {
  if (buf.length < 12 || buf.toString("ascii", 0, 4) !== "RIFF" || buf.toString("ascii", 8, 12) !== "WAVE") {
    throw new Error("not a RIFF/WAVE file");
  }
  let offset = 12;
  let format: { channels: number; rate: number; bits: number; tag: number } | null = null;
  while (offset + 8 <= buf.length) {
    const id = buf.toString("ascii", offset, offset + 4);
    let size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt ") {
      format = {
        tag: buf.readUInt16LE(body),
        channels: buf.readUInt16LE(body + 2),
        rate: buf.readUInt32LE(body + 4),
        bits: buf.readUInt16LE(body + 14),
      };
    } else if (id === "data") {
      if (!format) throw new Error("WAV data before its format");
      if ((format.tag !== 1 && format.tag !== 0xfffe) || format.bits !== 16 || format.channels !== 1) {
        throw new Error(`expected 16-bit PCM mono, got tag ${format.tag}, ${format.bits} bit, ${format.channels} ch`);
      }
      if (format.rate !== 16_000) throw new Error(`expected 16 kHz, got ${format.rate} Hz`);
      // ffmpeg writing to a pipe leaves the size at 0 or 0xFFFFFFFF: take the rest of the file.
      if (size === 0 || size === 0xffffffff || body + size > buf.length) size = buf.length - body;
      const n = Math.floor(size / 2);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(body + 2 * i) / 32768;
      return out;
    }
    offset = body + size + (size % 2);
  }
  throw new Error("WAV file without a data chunk");
}
