import { open } from "node:fs/promises";

/** Where the samples of a 16 kHz mono 16-bit WAV are: the data chunk's byte offset and sample count. */
interface WavLayout {
  dataOffset: number;
  samples: number;
}

/**
 * Finds the data chunk of a 16-bit PCM WAV (as our ffmpeg decode writes it: 16 kHz mono), walking the
 * RIFF chunks (a LIST or fact chunk before `data` is skipped). `buf` holds the file's first bytes (at
 * least up to the data chunk's header), `size` is the whole file's length.
 */
function wavLayout(buf: Buffer, fileSize: number): WavLayout {
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
      if (size === 0 || size === 0xffffffff || body + size > fileSize) size = fileSize - body;
      return { dataOffset: body, samples: Math.floor(size / 2) };
    }
    offset = body + size + (size % 2);
  }
  throw new Error("WAV file without a data chunk");
}

/** 16-bit little-endian samples to floats in [-1, 1). */
function toFloats(buf: Buffer, from: number, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(from + 2 * i) / 32768;
  return out;
}

/** Reads a whole 16 kHz mono 16-bit WAV into float samples in [-1, 1). Pure. */
export function readWavMono16k(buf: Buffer): Float32Array {
  const { dataOffset, samples } = wavLayout(buf, buf.length);
  return toFloats(buf, dataOffset, samples);
}

/** A WAV read piece by piece: only the stretch asked for is in memory. */
export interface WavReader {
  /** Samples in the file. */
  samples: number;
  /** Samples [from, to) as floats (clamped to the file). */
  read(from: number, to: number): Promise<Float32Array>;
  close(): Promise<void>;
}

/** Opens a 16 kHz mono 16-bit WAV for reading stretches of it (hours-long files stay on disk). */
export async function openWavMono16k(path: string): Promise<WavReader> {
  const fh = await open(path, "r");
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    await fh.read(head, 0, head.length, 0);
    const { dataOffset, samples } = wavLayout(head, size);
    return {
      samples,
      async read(from, to) {
        const a = Math.max(0, Math.min(samples, from));
        const b = Math.max(a, Math.min(samples, to));
        const buf = Buffer.alloc((b - a) * 2);
        if (buf.length) await fh.read(buf, 0, buf.length, dataOffset + 2 * a);
        return toFloats(buf, 0, b - a);
      },
      close: () => fh.close(),
    };
  } catch (err) {
    await fh.close();
    throw err;
  }
}
