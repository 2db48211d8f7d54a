/**
 * Joins the WebM (Opus) parts of one recording (one part per MediaRecorder session: a recording resumed
 * after a reload or a crash) into one valid WebM stream, without decoding: an EBML walk that keeps part
 * 1's EBML header, Segment, Info and Tracks, and appends every part's Clusters with their timecodes
 * moved past the parts before. SeekHead, Cues and Tags are dropped (their positions and durations would
 * be wrong); the Segment's size becomes unknown, which every WebM reader accepts.
 *
 * Only WebM with Opus is joined. Ogg (Firefox) and MP4 (Safari) parts, parts whose track setup differs
 * (codec, OpusHead, channels, sampling frequency, timecode scale) and anything that does not parse give
 * null: the parts are then transcribed one by one, as before.
 */

const ID = {
  ebml: 0x1a45dfa3,
  segment: 0x18538067,
  seekHead: 0x114d9b74,
  info: 0x1549a966,
  tracks: 0x1654ae6b,
  cluster: 0x1f43b675,
  cues: 0x1c53bb6b,
  tags: 0x1254c367,
  chapters: 0x1043a770,
  attachments: 0x1941a469,
  void: 0xec,
  crc32: 0xbf,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  timecode: 0xe7,
  position: 0xa7,
  prevSize: 0xab,
  simpleBlock: 0xa3,
  blockGroup: 0xa0,
  block: 0xa1,
  blockDuration: 0x9b,
  trackEntry: 0xae,
  trackNumber: 0xd7,
  trackType: 0x83,
  codecId: 0x86,
  codecPrivate: 0x63a2,
  audio: 0xe1,
  samplingFrequency: 0xb5,
  channels: 0x9f,
} as const;

/** Elements that can only sit directly in the Segment: one of them ends a Cluster of unknown size. */
const TOP_LEVEL = new Set<number>([
  ID.ebml,
  ID.segment,
  ID.seekHead,
  ID.info,
  ID.tracks,
  ID.cluster,
  ID.cues,
  ID.tags,
  ID.chapters,
  ID.attachments,
]);

/** Unknown size, as an 8-byte vint. */
const UNKNOWN_SIZE = Uint8Array.of(0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);

interface Element {
  id: number;
  /** Where the element's header starts. */
  start: number;
  dataStart: number;
  /** Where its data ends: the declared end, or for an unknown size the end of what contains it. */
  end: number;
  unknownSize: boolean;
}

/** The length of a vint from its first byte (1…8), or 0 for a byte that starts none. */
function vintLength(first: number): number {
  for (let len = 1; len <= 8; len++) if (first & (0x80 >> (len - 1))) return len;
  return 0;
}

/** An element's header at `pos`, or null when it is cut off or malformed. `limit` bounds it. */
function readHeader(buf: Uint8Array, pos: number, limit: number): Element | null {
  if (pos >= limit) return null;
  const idLen = vintLength(buf[pos] ?? 0);
  if (idLen === 0 || idLen > 4 || pos + idLen >= limit) return null;
  let id = 0;
  for (let i = 0; i < idLen; i++) id = id * 256 + (buf[pos + i] ?? 0);
  const sizePos = pos + idLen;
  const sizeLen = vintLength(buf[sizePos] ?? 0);
  if (sizeLen === 0 || sizePos + sizeLen > limit) return null;
  let size = (buf[sizePos] ?? 0) & (0xff >> sizeLen);
  let allOnes = size === 0xff >> sizeLen;
  for (let i = 1; i < sizeLen; i++) {
    const b = buf[sizePos + i] ?? 0;
    if (b !== 0xff) allOnes = false;
    size = size * 256 + b;
  }
  const dataStart = sizePos + sizeLen;
  return { id, start: pos, dataStart, end: allOnes ? limit : dataStart + size, unknownSize: allOnes };
}

/** The children of [from, to) that are whole; stops at the first cut-off or malformed one. */
function children(buf: Uint8Array, from: number, to: number): Element[] {
  const out: Element[] = [];
  let pos = from;
  for (let el = readHeader(buf, pos, to); el && !el.unknownSize && el.end <= to; el = readHeader(buf, pos, to)) {
    out.push(el);
    pos = el.end;
  }
  return out;
}

function readUint(buf: Uint8Array, el: Element): number {
  let v = 0;
  for (let i = el.dataStart; i < el.end; i++) v = v * 256 + (buf[i] ?? 0);
  return v;
}

function uintBytes(value: number): Uint8Array {
  const bytes: number[] = [];
  let v = value;
  do {
    bytes.unshift(v % 256);
    v = Math.floor(v / 256);
  } while (v > 0);
  return Uint8Array.from(bytes);
}

function idBytes(id: number): Uint8Array {
  return uintBytes(id);
}

/** An element with a known size, written as an 8-byte vint. */
function element(id: number, data: Uint8Array[]): Uint8Array[] {
  const size = data.reduce((n, d) => n + d.byteLength, 0);
  const sizeBytes = new Uint8Array(8);
  sizeBytes[0] = 0x01;
  let v = size;
  for (let i = 7; i >= 1; i--) {
    sizeBytes[i] = v % 256;
    v = Math.floor(v / 256);
  }
  return [idBytes(id), sizeBytes, ...data];
}

interface Cluster {
  timecode: number;
  /** The cluster's children other than Timecode, Position, PrevSize and CRC-32, as they are. */
  body: Uint8Array[];
  /** The first block's start and the last block's end, in timecode ticks (null: no block). */
  firstStart: number | null;
  lastEnd: number | null;
}

interface ParsedPart {
  ebmlHeader: Uint8Array;
  /** Info without Duration and CRC-32. */
  info: Uint8Array[];
  tracks: Uint8Array;
  setup: string;
  timecodeScale: number;
  clusters: Cluster[];
}

/** The duration of one Opus packet in nanoseconds, from its TOC byte (RFC 6716 §3.1). */
export function opusPacketNs(packet: Uint8Array): number {
  const toc = packet[0];
  if (toc === undefined) return 0;
  const config = toc >> 3;
  const frameMs =
    config < 12 ? [10, 20, 40, 60][config % 4] : config < 16 ? [10, 20][config % 2] : [2.5, 5, 10, 20][config % 4];
  const code = toc & 3;
  const frames = code === 0 ? 1 : code === 3 ? (packet[1] ?? 0) & 0x3f : 2;
  return (frameMs ?? 0) * frames * 1_000_000;
}

/** A (Simple)Block's relative timecode and duration in ticks; `durationTicks` from a BlockDuration. */
function blockTiming(buf: Uint8Array, el: Element, scale: number, durationTicks?: number) {
  const trackLen = vintLength(buf[el.dataStart] ?? 0);
  const p = el.dataStart + trackLen;
  if (trackLen === 0 || p + 3 > el.end) return null;
  const raw = ((buf[p] ?? 0) << 8) | (buf[p + 1] ?? 0);
  const relative = raw >= 0x8000 ? raw - 0x10000 : raw;
  const flags = buf[p + 2] ?? 0;
  if (durationTicks !== undefined) return { relative, duration: durationTicks };
  // Laced frames (rare for Opus): the lace count times the first frame's length.
  const laced = (flags & 0x06) !== 0;
  const frames = laced ? (buf[p + 3] ?? 0) + 1 : 1;
  const packet = buf.subarray(laced ? p + 4 : p + 3, el.end);
  return { relative, duration: Math.round((opusPacketNs(packet) * frames) / scale) };
}

/** Where a cluster ends, its timecode and blocks. Null when it has no timecode. */
function parseCluster(buf: Uint8Array, el: Element, limit: number, scale: number) {
  let timecode: number | null = null;
  const body: Uint8Array[] = [];
  // The earliest block start and the latest block end, relative to the cluster's timecode.
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const add = (b: { relative: number; duration: number } | null | undefined) => {
    if (!b) return;
    first = Math.min(first, b.relative);
    last = Math.max(last, b.relative + b.duration);
  };
  const end = Math.min(el.end, limit);
  let pos = el.dataStart;
  for (let c = readHeader(buf, pos, end); c && !c.unknownSize && c.end <= end; c = readHeader(buf, pos, end)) {
    if (el.unknownSize && TOP_LEVEL.has(c.id)) break;
    pos = c.end;
    if (c.id === ID.timecode) timecode = readUint(buf, c);
    if (c.id === ID.timecode || c.id === ID.position || c.id === ID.prevSize || c.id === ID.crc32) continue;
    body.push(buf.subarray(c.start, c.end));
    if (c.id === ID.simpleBlock) add(blockTiming(buf, c, scale));
    if (c.id === ID.blockGroup) {
      const inner = children(buf, c.dataStart, c.end);
      const block = inner.find((i) => i.id === ID.block);
      const d = inner.find((i) => i.id === ID.blockDuration);
      add(block && blockTiming(buf, block, scale, d ? readUint(buf, d) : undefined));
    }
  }
  // A cluster of unknown size ends where the next top-level element starts; a cut-off one where its
  // last whole child ends (a crash can leave half a block).
  const next = el.unknownSize || el.end > limit ? pos : el.end;
  if (timecode === null) return { next, cluster: null };
  const blocks = first !== Number.POSITIVE_INFINITY;
  const cluster: Cluster = {
    timecode,
    body,
    firstStart: blocks ? timecode + first : null,
    lastEnd: blocks ? timecode + last : null,
  };
  return { next, cluster };
}

/** What must match between parts for their blocks to make one stream: every track's codec setup. */
function trackSetup(buf: Uint8Array, tracks: Element): string | null {
  const entries = children(buf, tracks.dataStart, tracks.end).filter((e) => e.id === ID.trackEntry);
  const hex = (el: Element | undefined) => (el ? Array.from(buf.subarray(el.dataStart, el.end), String).join(",") : "");
  const setups = entries.map((entry) => {
    const fields = children(buf, entry.dataStart, entry.end);
    const field = (id: number) => fields.find((f) => f.id === id);
    const audio = field(ID.audio);
    const audioFields = audio ? children(buf, audio.dataStart, audio.end) : [];
    const audioField = (id: number) => audioFields.find((f) => f.id === id);
    return {
      number: hex(field(ID.trackNumber)),
      type: hex(field(ID.trackType)),
      codec: new TextDecoder().decode(buf.subarray(field(ID.codecId)?.dataStart ?? 0, field(ID.codecId)?.end ?? 0)),
      codecPrivate: hex(field(ID.codecPrivate)),
      channels: hex(audioField(ID.channels)),
      rate: hex(audioField(ID.samplingFrequency)),
    };
  });
  if (setups.length === 0 || setups.some((s) => s.codec !== "A_OPUS")) return null;
  return JSON.stringify(setups);
}

/** One part's pieces, or null when it is not a WebM/Matroska stream with Opus tracks. */
function parsePart(buf: Uint8Array): ParsedPart | null {
  const ebml = readHeader(buf, 0, buf.byteLength);
  if (!ebml || ebml.id !== ID.ebml || ebml.unknownSize || ebml.end > buf.byteLength) return null;
  const segment = readHeader(buf, ebml.end, buf.byteLength);
  if (!segment || segment.id !== ID.segment) return null;
  const limit = Math.min(segment.end, buf.byteLength);
  let info: Uint8Array[] | null = null;
  let tracks: Element | null = null;
  let timecodeScale = 1_000_000;
  const clusters: Cluster[] = [];
  let pos = segment.dataStart;
  for (let el = readHeader(buf, pos, limit); el; el = readHeader(buf, pos, limit)) {
    if (el.id === ID.cluster) {
      const { next, cluster } = parseCluster(buf, el, limit, timecodeScale);
      if (cluster) clusters.push(cluster);
      if (next <= el.start) break;
      pos = next;
      continue;
    }
    if (el.unknownSize || el.end > limit) break;
    if (el.id === ID.info) {
      const fields = children(buf, el.dataStart, el.end);
      const scale = fields.find((f) => f.id === ID.timecodeScale);
      if (scale) timecodeScale = readUint(buf, scale);
      const kept = fields.filter((f) => f.id !== ID.duration && f.id !== ID.crc32);
      info = element(
        ID.info,
        kept.map((f) => buf.subarray(f.start, f.end)),
      );
    }
    if (el.id === ID.tracks) tracks = el;
    pos = el.end;
  }
  if (!info || !tracks || timecodeScale <= 0) return null;
  const setup = trackSetup(buf, tracks);
  if (!setup) return null;
  return {
    ebmlHeader: buf.subarray(ebml.start, ebml.end),
    info,
    tracks: buf.subarray(tracks.start, tracks.end),
    setup,
    timecodeScale,
    clusters,
  };
}

function concat(pieces: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const bytesOf = (part: ArrayBuffer | Uint8Array) => (part instanceof Uint8Array ? part : new Uint8Array(part));

/**
 * The parts, in order, as one WebM stream; null when they cannot be joined (not WebM/Opus, different
 * track setups, no audio in a part, a part that does not parse). Each later part starts where the
 * previous one's last block ends.
 */
export function joinWebm(parts: readonly (ArrayBuffer | Uint8Array)[]): Uint8Array<ArrayBuffer> | null {
  if (parts.length === 0) return null;
  const parsed = parts.map((p) => parsePart(bytesOf(p)));
  const first = parsed[0];
  if (!first) return null;
  const pieces: Uint8Array[] = [first.ebmlHeader, idBytes(ID.segment), UNKNOWN_SIZE, ...first.info, first.tracks];
  let end = 0;
  for (const part of parsed) {
    if (!part || part.setup !== first.setup || part.timecodeScale !== first.timecodeScale) return null;
    let start = Number.POSITIVE_INFINITY;
    for (const c of part.clusters) if (c.firstStart !== null) start = Math.min(start, c.firstStart);
    if (start === Number.POSITIVE_INFINITY) return null;
    const shift = end - start;
    for (const c of part.clusters) {
      const timecode = c.timecode + shift;
      if (timecode < 0) return null;
      pieces.push(...element(ID.cluster, [...element(ID.timecode, [uintBytes(timecode)]), ...c.body]));
      if (c.lastEnd !== null) end = Math.max(end, c.lastEnd + shift);
    }
  }
  return concat(pieces);
}
