// WAV files for tests and benchmarks: 16-bit PCM, written by code (no fixture needed).

/** The 44-byte header of a 16-bit PCM WAV holding `dataBytes` of samples. */
export function wavHeader(dataBytes: number, rate = 16_000, channels = 1): Buffer {
  const head = Buffer.alloc(44);
  head.write("RIFF", 0, "ascii");
  head.writeUInt32LE(36 + dataBytes, 4);
  head.write("WAVEfmt ", 8, "ascii");
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(channels, 22);
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * channels * 2, 28);
  head.writeUInt16LE(channels * 2, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36, "ascii");
  head.writeUInt32LE(dataBytes, 40);
  return head;
}

/**
 * A WAV of about `bytes` bytes (whole frames): a sine tone of `hz` for `toneSeconds` of every
 * `periodSeconds`, silence the rest, the period written once and repeated (fast for tens of MB).
 */
export function toneWav(
  bytes: number,
  opts: {
    rate?: number;
    channels?: number;
    hz?: number;
    amplitude?: number;
    toneSeconds?: number;
    periodSeconds?: number;
  } = {},
): Buffer {
  const { rate = 16_000, channels = 1, hz = 300, amplitude = 3000, toneSeconds = 1, periodSeconds = 1 } = opts;
  const frame = channels * 2;
  const dataBytes = Math.floor((bytes - 44) / frame) * frame;
  const buf = Buffer.alloc(44 + dataBytes);
  wavHeader(dataBytes, rate, channels).copy(buf, 0);
  const period = Buffer.alloc(Math.round(periodSeconds * rate) * frame);
  for (let i = 0; i < Math.round(toneSeconds * rate); i++) {
    const v = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
    for (let c = 0; c < channels; c++) period.writeInt16LE(v, i * frame + c * 2);
  }
  for (let at = 44; at < buf.length; at += period.length)
    period.copy(buf, at, 0, Math.min(period.length, buf.length - at));
  return buf;
}
