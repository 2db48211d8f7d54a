/**
 * Where a recording is kept while it is made: IndexedDB, one row per recording and one per chunk
 * (recording id, part, sequence number), so a closed tab or a crash loses at most the last chunk.
 * A recording stays until it is transcribed or discarded. Each recorder session is its own part, kept
 * as it was recorded: WebM parts are joined into the whole recording when it is offered for
 * transcription (webm-join.ts), Ogg and MP4 parts are not.
 */
import type { Part } from "./recording.ts";

const DB_NAME = "kikitori-recorder";
const RECORDINGS = "recordings";
const CHUNKS = "chunks";
const LOCK_PREFIX = "kikitori-recording-";

export interface KeptRecording {
  id: string;
  /** Epoch ms of the first part's start (the file's name). */
  startedAt: number;
  mimeType: string;
  /** "recording" until the user pressed Stop: a row still "recording" on load was cut by a crash or a close. */
  state: "recording" | "stopped";
  parts: Part[];
  /** Bytes kept, all parts. */
  bytes: number;
  updatedAt: number;
}

interface ChunkRow {
  id: string;
  part: number;
  seq: number;
  data: ArrayBuffer;
}

function done<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function finished(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
  });
}

function openDb(factory: IDBFactory): Promise<IDBDatabase> {
  const req = factory.open(DB_NAME, 1);
  req.onupgradeneeded = () => {
    const db = req.result;
    if (!db.objectStoreNames.contains(RECORDINGS)) db.createObjectStore(RECORDINGS, { keyPath: "id" });
    if (!db.objectStoreNames.contains(CHUNKS)) db.createObjectStore(CHUNKS, { keyPath: ["id", "part", "seq"] });
  };
  return done(req);
}

/** Every key of one recording (`part` given: of that part) in the chunk store, in order. */
function chunkRange(id: string, part?: number): IDBKeyRange {
  // Arrays sort after numbers, so [id, []] / [id, part, []] close the range above every sequence number.
  return part === undefined ? IDBKeyRange.bound([id], [id, []]) : IDBKeyRange.bound([id, part], [id, part, []]);
}

async function heldLocks(): Promise<Set<string>> {
  const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
  if (!locks?.query) return new Set();
  try {
    const { held = [] } = await locks.query();
    return new Set(held.map((l) => l.name ?? ""));
  } catch {
    return new Set();
  }
}

export class RecordingStore {
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: IDBDatabase) {}

  /** Null when the browser keeps no IndexedDB (some private modes): recording still works, unkept. */
  static async open(factory: IDBFactory | undefined = globalThis.indexedDB): Promise<RecordingStore | null> {
    if (!factory) return null;
    try {
      return new RecordingStore(await openDb(factory));
    } catch {
      return null;
    }
  }

  close() {
    this.db.close();
  }

  /** Writes run one after the other, in the order they were asked for. */
  private queue<T>(write: () => Promise<T>): Promise<T> {
    const next = this.writes.then(write, write);
    this.writes = next.catch(() => undefined);
    return next;
  }

  create(rec: KeptRecording): Promise<void> {
    return this.queue(async () => {
      const tx = this.db.transaction(RECORDINGS, "readwrite");
      tx.objectStore(RECORDINGS).put(rec);
      await finished(tx);
    });
  }

  /** Keeps one chunk and the part's length so far, in one transaction. */
  append(id: string, part: number, seq: number, chunk: Blob, durationMs: number): Promise<void> {
    const bytes = chunk.arrayBuffer();
    return this.queue(async () => {
      const data = await bytes;
      const tx = this.db.transaction([RECORDINGS, CHUNKS], "readwrite");
      tx.objectStore(CHUNKS).put({ id, part, seq, data } satisfies ChunkRow);
      const recordings = tx.objectStore(RECORDINGS);
      const rec = (await done(recordings.get(id))) as KeptRecording | undefined;
      if (rec) {
        const parts = rec.parts.filter((p) => p.index !== part);
        parts.push({ index: part, durationMs });
        parts.sort((a, b) => a.index - b.index);
        recordings.put({ ...rec, parts, bytes: rec.bytes + data.byteLength, updatedAt: Date.now() });
      }
      await finished(tx);
    });
  }

  /** Changes a kept recording's row (its state, a new part); nothing when it is gone. */
  update(id: string, change: (rec: KeptRecording) => KeptRecording): Promise<void> {
    return this.queue(async () => {
      const tx = this.db.transaction(RECORDINGS, "readwrite");
      const recordings = tx.objectStore(RECORDINGS);
      const rec = (await done(recordings.get(id))) as KeptRecording | undefined;
      if (rec) recordings.put({ ...change(rec), updatedAt: Date.now() });
      await finished(tx);
    });
  }

  /** The newest kept recording that no other open tab is recording into, or null. */
  async latest(): Promise<KeptRecording | null> {
    const tx = this.db.transaction(RECORDINGS, "readonly");
    const all = (await done(tx.objectStore(RECORDINGS).getAll())) as KeptRecording[];
    const held = await heldLocks();
    const free = all.filter((r) => !held.has(LOCK_PREFIX + r.id)).sort((a, b) => b.startedAt - a.startedAt);
    return free[0] ?? null;
  }

  /** The kept parts as playable blobs, by part number (a part with no chunk is left out). */
  async parts(rec: KeptRecording): Promise<{ index: number; blob: Blob }[]> {
    const tx = this.db.transaction(CHUNKS, "readonly");
    const rows = (await done(tx.objectStore(CHUNKS).getAll(chunkRange(rec.id)))) as ChunkRow[];
    const byPart = new Map<number, ArrayBuffer[]>();
    for (const row of rows) byPart.set(row.part, [...(byPart.get(row.part) ?? []), row.data]);
    return [...byPart.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, data]) => ({ index, blob: new Blob(data, { type: rec.mimeType }) }));
  }

  /** Drops one part (it was transcribed); the recording goes with its last part. */
  removePart(id: string, part: number): Promise<void> {
    return this.queue(async () => {
      const tx = this.db.transaction([RECORDINGS, CHUNKS], "readwrite");
      tx.objectStore(CHUNKS).delete(chunkRange(id, part));
      const recordings = tx.objectStore(RECORDINGS);
      const rec = (await done(recordings.get(id))) as KeptRecording | undefined;
      const parts = rec?.parts.filter((p) => p.index !== part) ?? [];
      if (rec && parts.length > 0) recordings.put({ ...rec, parts, updatedAt: Date.now() });
      else recordings.delete(id);
      await finished(tx);
    });
  }

  remove(id: string): Promise<void> {
    return this.queue(async () => {
      const tx = this.db.transaction([RECORDINGS, CHUNKS], "readwrite");
      tx.objectStore(CHUNKS).delete(chunkRange(id));
      tx.objectStore(RECORDINGS).delete(id);
      await finished(tx);
    });
  }
}

/**
 * Marks a recording as being recorded in this tab (a Web Lock, where the browser has them) so another
 * tab does not offer it; the returned function lets go.
 */
export function holdRecordingLock(id: string): () => void {
  const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
  if (!locks?.request) return () => undefined;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  locks.request(LOCK_PREFIX + id, () => held).catch(() => undefined);
  return () => release();
}
