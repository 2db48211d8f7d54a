// The hand-off of accepted recordings (services/gateway/src/jobs/audio-handoff.ts) on real temp folders
// against in-memory fakes of the store, the job rows and the queue: stored then queued, retried, given
// up on, a job deleted meanwhile, a recording held in memory, and a stopped hand-off taken over.
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { JobContractError, type ProgressEnvelope } from "@kikitori/shared";
import { AUDIO_NOT_STORED, createJobQueues, type ProducerQueue } from "@kikitori/shared/server";
import {
  AudioHandoff,
  HANDOFF_MARKER,
  type HandoffPorts,
  type HeldBytes,
  type PendingJobState,
  type PendingRecording,
} from "../src/jobs/audio-handoff.ts";

const UID = "0c2d9a8b-5d0e-4f4a-8f54-7f2a3c1b9e22";
const JOB = "7b0a3a8e-2a8f-4a59-9d5c-2f3e0d4f6a11";
const KEY = `users/${UID}/audio/${JOB}.wav`;

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "handoff-test-"));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const rec = (over: Partial<PendingRecording> = {}): PendingRecording => ({
  jobId: JOB,
  userId: UID,
  audioKey: KEY,
  contentType: "audio/wav",
  bytes: 5,
  correlationId: "req-1",
  ...over,
});

function world(over: Partial<HandoffPorts> = {}, timings: { retryForMs?: number; staleMs?: number } = {}) {
  const s = {
    objects: new Map<string, string>(),
    putFails: 0,
    state: "pending" as PendingJobState,
    added: [] as Array<{ queue: string; name: string; data: unknown; opts: unknown }>,
    published: [] as ProgressEnvelope[],
    removed: [] as string[],
    sleeps: [] as number[],
    errors: [] as unknown[],
  };
  const queues = createJobQueues({
    connection: {} as never,
    prefix: "test",
    makeQueue: (queue) =>
      ({
        add: async (name: string, data: unknown, opts: unknown) => {
          s.added.push({ queue, name, data, opts });
          return {};
        },
        close: async () => undefined,
      }) as unknown as ProducerQueue,
  });
  const ports: HandoffPorts = {
    put: async (key, file) => {
      if (s.putFails > 0) {
        s.putFails--;
        throw new Error("ECONNREFUSED");
      }
      s.objects.set(key, await readFile(file, "utf8"));
    },
    remove: async (key) => {
      s.removed.push(key);
      s.objects.delete(key);
    },
    stored: async () => {
      if (s.state !== "pending") return false;
      s.state = "stored";
      return true;
    },
    notStored: async () => {
      if (s.state !== "pending") return false;
      s.state = "gone";
      return true;
    },
    state: async () => s.state,
    queues,
    publish: async (envelope) => {
      s.published.push(envelope);
      return 1;
    },
    log: { info: () => undefined, warn: () => undefined, error: (...a: unknown[]) => s.errors.push(a) },
    ...over,
  };
  const handoff = new AudioHandoff(ports, {
    tmpDir: tmp,
    retryForMs: timings.retryForMs ?? 60_000,
    heartbeatMs: 1000,
    staleMs: timings.staleMs ?? 60_000,
    sleep: async (ms) => {
      s.sleeps.push(ms);
    },
  });
  return { s, handoff };
}

/** A folder in tmp holding a recording `audio` with `text`. */
async function recording(text = "hello"): Promise<string> {
  const dir = await mkdtemp(path.join(tmp, "kikitori-upload-"));
  await writeFile(path.join(dir, "audio"), text);
  return path.join(dir, "audio");
}

/** What the upload use case does: the marker (a held recording's comes with its bytes), then the hand-off. */
async function keep(handoff: AudioHandoff, file: string, r: PendingRecording, held?: HeldBytes) {
  if (!held) await handoff.mark(file, r);
  handoff.keep(file, r, held);
}

/** Resolves once the hand-offs running have ended. */
async function settled(handoff: AudioHandoff) {
  while (handoff.inFlight > 0) await new Promise((r) => setTimeout(r, 2));
}

it("stores the recording, then queues the job and tells the user's sockets, and clears its folder", async () => {
  const { s, handoff } = world();
  const file = await recording();
  await keep(handoff, file, rec());
  // The marker is on disk before keep() resolves.
  expect(JSON.parse(await readFile(path.join(path.dirname(file), HANDOFF_MARKER), "utf8"))).toMatchObject({
    jobId: JOB,
    file: "audio",
  });
  await settled(handoff);
  expect(s.objects.get(KEY)).toBe("hello");
  expect(s.state).toBe("stored");
  expect(s.added).toEqual([
    {
      queue: "transcription",
      name: "transcribe",
      data: { jobId: JOB, userId: UID, audioKey: KEY, correlationId: "req-1" },
      opts: { jobId: JOB },
    },
  ]);
  expect(s.published).toEqual([
    {
      userId: UID,
      correlationId: "req-1",
      event: { jobId: JOB, status: "File uploaded", audioFileUrl: `/api/audio/${JOB}` },
    },
  ]);
  expect(await readdir(tmp)).toEqual([]);
});

it("marks and writes a recording held in memory first, and gives its memory back", async () => {
  let found: string[] = [];
  const { s, handoff } = world({
    put: async (key, file) => {
      found = (await readdir(path.dirname(file))).sort();
      s.objects.set(key, await readFile(file, "utf8"));
    },
  });
  const dir = await mkdtemp(path.join(tmp, "kikitori-upload-"));
  let freed = 0;
  const held = { chunks: [Buffer.from("hel"), Buffer.from("lo")], free: () => void freed++ };
  await keep(handoff, path.join(dir, "audio"), rec(), held);
  await settled(handoff);
  expect([s.objects.get(KEY), freed, s.added.length]).toEqual(["hello", 1, 1]);
  expect(found).toEqual(["audio", HANDOFF_MARKER]);
});

it("retries a failing store with a growing wait, then queues", async () => {
  const { s, handoff } = world();
  s.putFails = 3;
  await keep(handoff, await recording(), rec());
  await settled(handoff);
  expect(s.sleeps).toEqual([1000, 2000, 4000]);
  expect([s.objects.has(KEY), s.added.length]).toEqual([true, 1]);
});

it("fails the job (minutes given back, nothing half-written) when the store never takes it", async () => {
  const { s, handoff } = world({}, { retryForMs: 0 });
  s.putFails = 99;
  await keep(handoff, await recording(), rec());
  await settled(handoff);
  expect(s.state).toBe("gone");
  expect(s.removed).toEqual([KEY]);
  expect(s.added).toEqual([]);
  expect(s.published).toEqual([
    {
      userId: UID,
      correlationId: "req-1",
      event: { jobId: JOB, status: "Failed", error: { code: "SERVICE_UNAVAILABLE", message: AUDIO_NOT_STORED } },
    },
  ]);
  expect(await readdir(tmp)).toEqual([]);
});

it("takes the object back out when the job was deleted while its recording was on its way", async () => {
  const { s, handoff } = world();
  s.state = "gone";
  await keep(handoff, await recording(), rec());
  await settled(handoff);
  expect([s.objects.size, s.removed, s.added.length, s.published.length]).toEqual([0, [KEY], 0, 0]);
});

it("queues without a second announcement when another gateway stored it first", async () => {
  const { s, handoff } = world();
  s.state = "stored";
  await keep(handoff, await recording(), rec());
  await settled(handoff);
  expect([s.removed, s.added.length, s.published.length]).toEqual([[], 1, 0]);
});

it("logs, and keeps the folder for another try, when the queue refuses the job", async () => {
  const { s, handoff } = world();
  await keep(handoff, await recording(), rec({ jobId: "not-a-uuid" }));
  await settled(handoff);
  expect(s.errors).toEqual([[{ err: expect.any(JobContractError), jobId: "not-a-uuid" }, "audio hand-off failed"]]);
  expect((await readdir(tmp)).length).toBe(1);
});

it("takes over a stopped hand-off from its marker; leaves fresh markers and unmarked folders alone", async () => {
  const { s, handoff } = world({}, { staleMs: 30_000 });
  const stopped = await recording("stopped");
  await writeFile(
    path.join(path.dirname(stopped), HANDOFF_MARKER),
    JSON.stringify({ ...rec({ bytes: 7 }), file: "audio" }),
  );
  const old = new Date(Date.now() - 60_000);
  await utimes(path.join(path.dirname(stopped), HANDOFF_MARKER), old, old);
  const fresh = await recording("fresh");
  await writeFile(
    path.join(path.dirname(fresh), HANDOFF_MARKER),
    JSON.stringify({ ...rec({ jobId: "8b0a3a8e-2a8f-4a59-9d5c-2f3e0d4f6a11" }), file: "audio" }),
  );
  await recording("an upload still arriving");
  expect(await handoff.resume()).toBe(1);
  await settled(handoff);
  expect([s.objects.get(KEY), s.added.length]).toEqual(["stopped", 1]);
  expect((await readdir(tmp)).length).toBe(2);
});

it("fails a stopped hand-off whose recording is not there whole", async () => {
  const { s, handoff } = world({}, { staleMs: 0 });
  const cut = await recording("hel");
  await writeFile(
    path.join(path.dirname(cut), HANDOFF_MARKER),
    JSON.stringify({ ...rec({ bytes: 5 }), file: "audio" }),
  );
  expect(await handoff.resume()).toBe(1);
  await settled(handoff);
  expect([s.state, s.objects.size, s.published[0]?.event]).toEqual([
    "gone",
    0,
    expect.objectContaining({ status: "Failed" }),
  ]);
});

it("on close, stops retrying and leaves the recording and its marker for the next start", async () => {
  let release: (() => void) | null = null;
  const { s, handoff } = world({
    put: () =>
      new Promise((_, reject) => {
        release = () => reject(new Error("store down"));
      }),
  });
  const file = await recording();
  await keep(handoff, file, rec());
  while (!release) await new Promise((r) => setTimeout(r, 2));
  const closing = handoff.close(5_000);
  (release as () => void)();
  await closing;
  expect([s.state, s.added.length]).toEqual(["pending", 0]);
  expect((await readdir(path.dirname(file))).sort()).toEqual(["audio", HANDOFF_MARKER]);
});

it("once stopping, only puts a recording held in memory on the disk, for the next start", async () => {
  const { s, handoff } = world();
  await handoff.close(100);
  const dir = await mkdtemp(path.join(tmp, "kikitori-upload-"));
  let freed = 0;
  await keep(handoff, path.join(dir, "audio"), rec(), { chunks: [Buffer.from("hello")], free: () => void freed++ });
  while (freed === 0) await new Promise((r) => setTimeout(r, 2));
  expect((await readdir(dir)).sort()).toEqual(["audio", HANDOFF_MARKER]);
  expect([s.objects.size, s.added.length]).toEqual([0, 0]);
});
