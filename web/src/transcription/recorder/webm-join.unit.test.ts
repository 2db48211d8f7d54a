import { describe, expect, it } from "@jest/globals";
import { joinWebm, opusPacketNs } from "./webm-join.ts";

// A tiny EBML writer for synthetic parts: elements with known sizes (ffmpeg) or unknown ones (Chromium).
type Bytes = number[];
const UNKNOWN = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];

function idOf(id: number): Bytes {
  const out: Bytes = [];
  for (let v = id; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return out;
}
function size(n: number): Bytes {
  if (n < 0x7f) return [0x80 | n];
  return [0x40 | (n >> 8), n & 0xff];
}
function el(id: number, ...data: Bytes[]): Bytes {
  const body = data.flat();
  return [...idOf(id), ...size(body.length), ...body];
}
function unknownEl(id: number, ...data: Bytes[]): Bytes {
  return [...idOf(id), ...UNKNOWN, ...data.flat()];
}
const uint = (v: number): Bytes => (v < 256 ? [v] : [v >> 8, v & 0xff]);
const text = (s: string): Bytes => [...new TextEncoder().encode(s)];
const float = (v: number): Bytes => [...new Uint8Array(new Float32Array([v]).buffer).reverse()];

/** A 20 ms CELT Opus packet (TOC config 31, one frame) with a marker byte. */
const simpleBlock = (relative: number, marker: number) =>
  el(0xa3, [0x81, (relative >> 8) & 0xff, relative & 0xff, 0x80, 0xf8, marker]);

function cluster(timecode: number, blocks: number, marker: number, unknown = false): Bytes {
  const children = [el(0xe7, uint(timecode)), el(0xa7, [0x10])];
  for (let i = 0; i < blocks; i++) children.push(simpleBlock(i * 20, marker));
  return unknown ? unknownEl(0x1f43b675, ...children) : el(0x1f43b675, ...children);
}

const opusHead = [...text("OpusHead"), 1, 1, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0];

function part({
  clusters,
  unknown = false,
  channels = 1,
  codec = "A_OPUS",
}: {
  clusters: Bytes[];
  unknown?: boolean;
  channels?: number;
  codec?: string;
}): Uint8Array {
  const header = el(0x1a45dfa3, el(0x4282, text("webm")));
  const seekHead = el(0x114d9b74, el(0x4dbb, el(0x53ab, [0x15, 0x49, 0xa9, 0x66]), el(0x53ac, [0x20])));
  const info = el(0x1549a966, el(0x2ad7b1, [0x0f, 0x42, 0x40]), el(0x4489, float(1500)), el(0x4d80, text("test")));
  const audio = el(0xe1, el(0xb5, float(48000)), el(0x9f, [channels]));
  const entry = el(0xae, el(0xd7, [1]), el(0x83, [2]), el(0x86, text(codec)), el(0x63a2, opusHead), audio);
  const tracks = el(0x1654ae6b, entry);
  const cues = el(0x1c53bb6b, el(0xbb, el(0xb3, [0]), el(0xb7, el(0xf7, [1]), el(0xf1, [0x30]))));
  const body = [seekHead, info, tracks, ...clusters, ...(unknown ? [] : [cues])];
  return Uint8Array.from([...header, ...(unknown ? unknownEl(0x18538067, ...body) : el(0x18538067, ...body))]);
}

// A reader of the joined stream, to check what was written.
interface Read {
  id: number;
  data: Uint8Array;
  unknown: boolean;
}
function readAll(buf: Uint8Array, from = 0, to = buf.length): Read[] {
  const out: Read[] = [];
  let pos = from;
  while (pos < to) {
    const first = buf[pos] ?? 0;
    const idLen = Math.clz32(first) - 23;
    let id = 0;
    for (let i = 0; i < idLen; i++) id = id * 256 + (buf[pos + i] ?? 0);
    const s = pos + idLen;
    const sLen = Math.clz32(buf[s] ?? 0) - 23;
    let n = (buf[s] ?? 0) & (0xff >> sLen);
    let ones = n === 0xff >> sLen;
    for (let i = 1; i < sLen; i++) {
      ones &&= buf[s + i] === 0xff;
      n = n * 256 + (buf[s + i] ?? 0);
    }
    const start = s + sLen;
    const end = ones ? to : start + n;
    out.push({ id, data: buf.subarray(start, end), unknown: ones });
    pos = end;
  }
  return out;
}
const num = (d: Uint8Array) => d.reduce((v, b) => v * 256 + b, 0);

function segmentOf(joined: Uint8Array) {
  const top = readAll(joined);
  expect(top.map((e) => e.id)).toEqual([0x1a45dfa3, 0x18538067]);
  const segment = top[1];
  if (!segment) throw new Error("no segment");
  expect(segment.unknown).toBe(true);
  return readAll(segment.data);
}

/** Every block's absolute time and marker byte, cluster by cluster. */
function blocksOf(children: Read[]) {
  return children
    .filter((c) => c.id === 0x1f43b675)
    .flatMap((c) => {
      const inner = readAll(c.data);
      const tc = num(inner.find((i) => i.id === 0xe7)?.data ?? new Uint8Array());
      expect(inner.some((i) => i.id === 0xa7)).toBe(false);
      return inner
        .filter((i) => i.id === 0xa3)
        .map((b) => ({ at: tc + (((b.data[1] ?? 0) << 8) | (b.data[2] ?? 0)), marker: b.data[5] }));
    });
}

describe("joinWebm", () => {
  it("joins known-size parts: later clusters' timecodes raised past the earlier part's last block", () => {
    const a = part({ clusters: [cluster(0, 50, 1), cluster(1000, 25, 1)] }); // 0…1500 ms
    const b = part({ clusters: [cluster(0, 50, 2), cluster(1000, 10, 2)] }); // 0…1200 ms
    const joined = joinWebm([a, b]);
    expect(joined).not.toBeNull();
    const children = segmentOf(joined as Uint8Array);
    expect(children.map((c) => c.id).filter((id) => id !== 0x1f43b675)).toEqual([0x1549a966, 0x1654ae6b]);
    const clusterTimecodes = children
      .filter((c) => c.id === 0x1f43b675)
      .map((c) => num(readAll(c.data).find((i) => i.id === 0xe7)?.data ?? new Uint8Array()));
    expect(clusterTimecodes).toEqual([0, 1000, 1500, 2500]);
    const blocks = blocksOf(children);
    expect(blocks).toHaveLength(135);
    expect(blocks.filter((b) => b.marker === 2)[0]?.at).toBe(1500);
    expect(blocks.at(-1)?.at).toBe(2680);
    // Times only go up: one continuous stream.
    expect(blocks.every((b, i) => i === 0 || b.at > (blocks[i - 1]?.at ?? 0))).toBe(true);
  });

  it("drops SeekHead, Cues and the Info's Duration (they would point wrong), keeps the rest of Info", () => {
    const joined = joinWebm([part({ clusters: [cluster(0, 5, 1)] }), part({ clusters: [cluster(0, 5, 2)] })]);
    const children = segmentOf(joined as Uint8Array);
    expect(children.some((c) => c.id === 0x114d9b74 || c.id === 0x1c53bb6b)).toBe(false);
    const info = readAll(children.find((c) => c.id === 0x1549a966)?.data ?? new Uint8Array());
    expect(info.map((i) => i.id)).toEqual([0x2ad7b1, 0x4d80]);
  });

  it("joins unknown-size clusters in an unknown-size segment (Chromium's MediaRecorder)", () => {
    const a = part({ clusters: [cluster(0, 10, 1, true), cluster(200, 10, 1, true)], unknown: true });
    const b = part({ clusters: [cluster(0, 10, 2, true), cluster(200, 5, 2, true)], unknown: true });
    const c = part({ clusters: [cluster(0, 3, 3)] });
    const joined = joinWebm([a, b, c]);
    expect(joined).not.toBeNull();
    const children = segmentOf(joined as Uint8Array);
    expect(children.filter((x) => x.id === 0x1f43b675).every((x) => !x.unknown)).toBe(true);
    const blocks = blocksOf(children);
    expect(blocks.map((x) => x.marker)).toEqual([...Array(20).fill(1), ...Array(15).fill(2), 3, 3, 3]);
    expect(blocks.find((x) => x.marker === 2)?.at).toBe(400);
    expect(blocks.find((x) => x.marker === 3)?.at).toBe(700);
  });

  it("keeps what was whole of a part cut off mid-block (a crash)", () => {
    const whole = part({ clusters: [cluster(0, 10, 2, true), cluster(200, 10, 2, true)], unknown: true });
    const cut = whole.subarray(0, whole.length - 3);
    const joined = joinWebm([part({ clusters: [cluster(0, 10, 1)] }), cut]);
    const blocks = blocksOf(segmentOf(joined as Uint8Array));
    expect(blocks.filter((x) => x.marker === 2)).toHaveLength(19);
  });

  it("refuses parts whose tracks differ (channels, codec) and anything not WebM", () => {
    const mono = part({ clusters: [cluster(0, 5, 1)] });
    expect(joinWebm([mono, part({ clusters: [cluster(0, 5, 2)], channels: 2 })])).toBeNull();
    expect(joinWebm([mono, part({ clusters: [cluster(0, 5, 2)], codec: "A_VORBIS" })])).toBeNull();
    expect(joinWebm([mono, new TextEncoder().encode("OggS\0\x02 not a webm")])).toBeNull();
    expect(joinWebm([mono, part({ clusters: [] })])).toBeNull();
    expect(joinWebm([])).toBeNull();
  });

  it("reads an Opus packet's length from its TOC byte", () => {
    expect(opusPacketNs(Uint8Array.of(0xf8))).toBe(20_000_000); // CELT 20 ms, one frame
    expect(opusPacketNs(Uint8Array.of(0x03, 0x02))).toBe(20_000_000); // SILK 10 ms, code 3: two frames
    expect(opusPacketNs(Uint8Array.of(0x19))).toBe(120_000_000); // SILK 60 ms, two frames
  });
});
