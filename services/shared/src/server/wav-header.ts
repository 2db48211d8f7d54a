// The length of an uncompressed (PCM or float) WAV read from its header, without ffprobe or ffmpeg.
// Every byte of such a file's data chunk is a sample, so what ffmpeg would decode is exactly the data
// that is there: the header's claim and the bytes present give both numbers the upload check needs.

/** What a PCM/float WAV holds: the header's length, and the length its bytes really cover. */
export interface WavPcmInfo {
  /** Seconds the data chunk's size declares (the bytes present when the size is unset or too large to mean it). */
  declaredSeconds: number;
  /** Seconds of samples really in the file (whole frames only). */
  presentSeconds: number;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
}

const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;

/**
 * Reads a RIFF/WAVE header from the first bytes of a file of `fileBytes` bytes. Null when it is not
 * plain PCM or float audio, when the header does not make sense, or when the data chunk starts past
 * `head` (a long metadata chunk first): then ffprobe must say.
 */
export function wavPcmInfo(head: Uint8Array, fileBytes: number): WavPcmInfo | null {
  if (head.length < 12) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const id = (o: number) => String.fromCharCode(head[o], head[o + 1], head[o + 2], head[o + 3]);
  if (id(0) !== "RIFF" || id(8) !== "WAVE") return null;
  let fmt: { tag: number; channels: number; rate: number; blockAlign: number; bits: number } | null = null;
  let o = 12;
  while (o + 8 <= head.length) {
    const chunk = id(o);
    const size = view.getUint32(o + 4, true);
    const body = o + 8;
    if (chunk === "fmt ") {
      if (size < 16 || body + Math.min(size, 26) > head.length) return null;
      let tag = view.getUint16(body, true);
      if (tag === EXTENSIBLE) {
        if (size < 40 || body + 26 > head.length) return null;
        tag = view.getUint16(body + 24, true);
      }
      fmt = {
        tag,
        channels: view.getUint16(body + 2, true),
        rate: view.getUint32(body + 4, true),
        blockAlign: view.getUint16(body + 12, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (chunk === "data") {
      if (!fmt || (fmt.tag !== PCM && fmt.tag !== FLOAT)) return null;
      const { channels, rate, blockAlign, bits } = fmt;
      const sane =
        channels >= 1 &&
        channels <= 64 &&
        rate >= 1000 &&
        rate <= 768_000 &&
        [8, 16, 24, 32, 64].includes(bits) &&
        blockAlign === (channels * bits) / 8;
      if (!sane) return null;
      const present = Math.max(0, fileBytes - body);
      // Streaming writers leave the size 0 or 0xFFFFFFFF: the data runs to the end of the file.
      const declared = size === 0 || size === 0xffffffff ? present : size;
      const seconds = (bytes: number) => Math.floor(bytes / blockAlign) / rate;
      return {
        declaredSeconds: seconds(declared),
        presentSeconds: seconds(Math.min(declared, present)),
        sampleRate: rate,
        channels,
        bitsPerSample: bits,
      };
    }
    o = body + size + (size % 2);
  }
  return null;
}
