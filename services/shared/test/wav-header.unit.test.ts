// The WAV header reader the upload check trusts instead of ffprobe and a decode: its numbers must be
// what ffmpeg gives for the same file (checked against ffprobe/ffmpeg in media-boundaries.int.test.ts).
import { wavPcmInfo } from "../src/server/wav-header.ts";

/** A WAV header: `fmtTag` 1 (PCM) / 3 (float) / 0xFFFE (extensible), `dataBytes` declared. */
function header(o: {
  rate?: number;
  channels?: number;
  bits?: number;
  fmtTag?: number;
  dataBytes: number;
  extra?: Buffer;
}) {
  const { rate = 16_000, channels = 1, bits = 16, fmtTag = 1, dataBytes, extra = Buffer.alloc(0) } = o;
  const ext = fmtTag === 0xfffe;
  const fmt = Buffer.alloc(ext ? 40 : 16);
  fmt.writeUInt16LE(fmtTag, 0);
  fmt.writeUInt16LE(channels, 2);
  fmt.writeUInt32LE(rate, 4);
  fmt.writeUInt32LE((rate * channels * bits) / 8, 8);
  fmt.writeUInt16LE((channels * bits) / 8, 12);
  fmt.writeUInt16LE(bits, 14);
  if (ext) {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(1, 24); // KSDATAFORMAT_SUBTYPE_PCM's first two bytes
  }
  const chunk = (id: string, body: Buffer, size = body.length) => {
    const h = Buffer.alloc(8);
    h.write(id, 0);
    h.writeUInt32LE(size, 4);
    return Buffer.concat([h, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const dataHeader = chunk("data", Buffer.alloc(0), dataBytes);
  return Buffer.concat([
    Buffer.from("RIFF"),
    Buffer.alloc(4),
    Buffer.from("WAVE"),
    chunk("fmt ", fmt),
    extra,
    dataHeader,
  ]);
}

it("reads the declared and the present length of a PCM WAV", () => {
  const h = header({ dataBytes: 32_000 * 10 });
  expect(wavPcmInfo(h, h.length + 32_000 * 10)).toEqual({
    declaredSeconds: 10,
    presentSeconds: 10,
    sampleRate: 16_000,
    channels: 1,
    bitsPerSample: 16,
  });
  // Cut short: what is there; half a frame does not count.
  expect(wavPcmInfo(h, h.length + 32_000 * 4 + 1)).toMatchObject({ declaredSeconds: 10, presentSeconds: 4 });
  // More bytes than declared (a trailing chunk): the declared length.
  expect(wavPcmInfo(h, h.length + 32_000 * 12)).toMatchObject({ presentSeconds: 10 });
});

it("takes stereo, 24-bit, float and extensible PCM, and a streaming writer's unset size", () => {
  const st = header({ rate: 48_000, channels: 2, bits: 24, dataBytes: 48_000 * 6 * 3 });
  expect(wavPcmInfo(st, st.length + 48_000 * 6 * 3)).toMatchObject({
    declaredSeconds: 3,
    channels: 2,
    bitsPerSample: 24,
  });
  const fl = header({ fmtTag: 3, bits: 32, dataBytes: 64_000 * 2 });
  expect(wavPcmInfo(fl, fl.length + 64_000 * 2)?.declaredSeconds).toBe(2);
  const ex = header({ fmtTag: 0xfffe, dataBytes: 32_000 });
  expect(wavPcmInfo(ex, ex.length + 32_000)?.declaredSeconds).toBe(1);
  const unset = header({ dataBytes: 0xffffffff });
  expect(wavPcmInfo(unset, unset.length + 32_000 * 5)).toMatchObject({ declaredSeconds: 5, presentSeconds: 5 });
});

it("skips chunks before the data, and leaves to ffprobe what it cannot read from the head", () => {
  const list = Buffer.concat([Buffer.from("LIST"), Buffer.from([5, 0, 0, 0]), Buffer.from("INFOx"), Buffer.alloc(1)]);
  const h = header({ dataBytes: 32_000, extra: list });
  expect(wavPcmInfo(h, h.length + 32_000)?.declaredSeconds).toBe(1);
  // The data chunk starts past the head (a long metadata chunk).
  expect(wavPcmInfo(h.subarray(0, 40), h.length + 32_000)).toBeNull();
  // Compressed WAV (ADPCM, tag 2), nonsense fields, not RIFF at all.
  expect(wavPcmInfo(header({ fmtTag: 2, dataBytes: 100 }), 1000)).toBeNull();
  const bad = header({ dataBytes: 100 });
  bad.writeUInt16LE(3, 32); // block align that does not match 1 × 16 bit
  expect(wavPcmInfo(bad, 1000)).toBeNull();
  expect(wavPcmInfo(Buffer.from("OggS0000000000000000"), 1000)).toBeNull();
});
