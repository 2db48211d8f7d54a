import { readFileSync } from "node:fs";
import path from "node:path";
import { jest } from "@jest/globals";
import { createObjectStore } from "@kikitori/shared/server";
import { sweepExpiredAudio } from "../../services/transcription-worker/src/handlers/retention.ts";
import type { ServiceProcess } from "../infra/service-process.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { createUser, listen, startWorker, upload } from "../support/pipeline.ts";
import { wordErrorRate } from "../support/wer.ts";

jest.setTimeout(240_000);

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/audio");
const MP3 = readFileSync(path.join(FIXTURES, "interview-en.mp3"));
const REFERENCE = readFileSync(path.join(FIXTURES, "interview-en.txt"), "utf8");

let t: TestGateway;
const workers: ServiceProcess[] = [];
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  for (const w of workers) w.child.kill("SIGKILL");
  await t?.close();
});

const store = () =>
  createObjectStore({
    S3_ENDPOINT: t.env.S3_ENDPOINT,
    S3_ACCESS_KEY: t.env.S3_ACCESS_KEY,
    S3_SECRET_KEY: t.env.S3_SECRET_KEY,
    S3_BUCKET: t.env.S3_BUCKET,
    S3_REGION: "us-east-1",
  });

async function objectsUnder(prefix: string): Promise<number> {
  const { Client } = await import("minio");
  const u = new URL(t.env.S3_ENDPOINT);
  const c = new Client({
    endPoint: u.hostname,
    port: Number(u.port),
    useSSL: false,
    accessKey: t.env.S3_ACCESS_KEY,
    secretKey: t.env.S3_SECRET_KEY,
  });
  let n = 0;
  for await (const _ of c.listObjectsV2(t.env.S3_BUCKET, prefix, true) as AsyncIterable<unknown>) n++;
  return n;
}

describe("bad uploads: the right code, nothing stored, nothing charged", () => {
  it.each([
    ["0 bytes", { data: new Uint8Array(0), name: "empty.mp3" }, {}, 400, "FILE_EMPTY"],
    ["20 MiB + 1 byte", { data: new Uint8Array(20 * 1024 * 1024 + 1), name: "big.mp3" }, {}, 413, "FILE_TOO_LARGE"],
    [
      "a text file named .mp3",
      { data: new TextEncoder().encode("just some text, not audio at all\n".repeat(50)), name: "notes.mp3" },
      {},
      415,
      "UNSUPPORTED_AUDIO",
    ],
    ["a truncated mp3", { data: MP3.subarray(0, 1000), name: "cut.mp3" }, {}, 422, "AUDIO_DAMAGED"],
    ["a wav header with no data", { data: wavHeaderOnly(), name: "hdr.wav" }, {}, 422, "AUDIO_DAMAGED"],
    ["no file", null, {}, 400, "FILE_MISSING"],
    ["an unknown file type", { data: MP3, name: "a.mp3" }, { model: "podcast" }, 400, "VALIDATION_FAILED"],
    ["an unknown tone", { data: MP3, name: "a.mp3" }, { tone: "angry" }, 400, "VALIDATION_FAILED"],
    [
      "an example over 300 characters",
      { data: MP3, name: "a.mp3" },
      { interviewExample: "x".repeat(301) },
      400,
      "VALIDATION_FAILED",
    ],
    ["no file type", { data: MP3, name: "a.mp3" }, { model: "" }, 400, "VALIDATION_FAILED"],
  ] as const)("%s", async (_name, file, fields, status, code) => {
    const user = await createUser(t);
    const r = await upload(t, user.token, file ? { ...file, data: new Uint8Array(file.data) } : null, {
      model: "meeting",
      ...fields,
    });
    expect([r.status, r.body?.error?.code]).toEqual([status, code]);
    expect(await t.db.transcriptionJob.count({ where: { userId: user.uid } })).toBe(0);
    expect(await objectsUnder(`users/${user.uid}/`)).toBe(0);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: user.uid } })).secondsUsed).toBe(0);
  });

  it("refuses a uid that is not the token's", async () => {
    const user = await createUser(t);
    const r = await upload(t, user.token, { data: MP3, name: "a.mp3" }, { model: "meeting", uid: "someone-else" });
    expect([r.status, r.body.error.code]).toEqual([403, "UID_MISMATCH"]);
  });

  it("refuses a recording longer than the minutes left, with a link to the plan page", async () => {
    const user = await createUser(t, { secondsUsed: 30 * 60 - 20 });
    const r = await upload(t, user.token, { data: MP3, name: "a.mp3" }, { model: "meeting", language: "ja" });
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe("QUOTA_EXCEEDED");
    expect(r.body.error.link).toBe("http://localhost:3000/ja/upgrade-plan");
    expect(await t.db.transcriptionJob.count({ where: { userId: user.uid } })).toBe(0);
  });
});

describe("a recording of English speech through both workers", () => {
  it("uploads, transcribes (WER < 40 %), corrects, reports in order and charges once", async () => {
    workers.push(await startWorker(t, "transcription-worker"), await startWorker(t, "text-worker"));
    const user = await createUser(t);
    const sock = await listen(t, user.token);
    const r = await upload(
      t,
      user.token,
      { data: MP3, name: "interview.mp3", type: "audio/mpeg" },
      {
        model: "meeting",
        interviewer: "Anna",
        interviewee: "Ben",
        tone: "formal",
        language: "en",
      },
    );
    expect(r.status).toBe(202);
    const { jobId } = r.body;
    const done = await sock.until(
      (m) => m.jobId === jobId && (m.status === "Correction complete" || m.status === "Failed"),
    );
    expect(done.status).toBe("Correction complete");

    // Status events (live "segments" messages have no status; whisper.int.test.ts checks them).
    const statuses = sock.messages.filter((m) => m.jobId === jobId && m.status).map((m) => m.status);
    const order = [
      "File uploaded",
      "Transcription started",
      "Transcription complete",
      "Correction started",
      "Correction complete",
    ];
    expect(statuses.filter((s) => order.includes(s))).toEqual(order);
    const firstCorrection = statuses.indexOf("Correction started");
    expect(
      statuses.slice(0, firstCorrection).every((s) => s.startsWith("Transcription") || s === "File uploaded"),
    ).toBe(true);
    const txProgress = sock.messages
      .filter((m) => m.jobId === jobId && m.transcriptionProgress !== undefined)
      .map((m) => m.transcriptionProgress);
    expect(txProgress[0]).toBe(5);
    expect(txProgress.at(-1)).toBe(100);
    expect([...txProgress].sort((a, b) => a - b)).toEqual(txProgress);

    const complete = sock.messages.find((m) => m.jobId === jobId && m.status === "Transcription complete");
    const wer = wordErrorRate(REFERENCE, complete.transcription);
    console.log(
      `pocketsphinx WER on the fixture: ${(wer * 100).toFixed(1)} %; transcription ${complete.transcriptionTime} s`,
    );
    expect(wer).toBeLessThan(0.4);
    expect(done.rewrittenText).toMatch(/Anna:|Ben:/);

    const snap = await fetch(`${t.url}/api/transcriptions/${jobId}`, {
      headers: { authorization: `Bearer ${user.token}` },
    }).then((x) => x.json());
    expect(snap).toMatchObject({
      jobId,
      status: "completed",
      transcriptionProgress: 100,
      correctionProgress: 100,
      error: null,
    });
    expect(snap.transcription).toBe(complete.transcription);
    expect(snap.rewrittenText).toBe(done.rewrittenText);
    expect(snap.characterCount).toBe([...done.rewrittenText].length);

    const u = await t.db.user.findUniqueOrThrow({ where: { id: user.uid } });
    expect(u.secondsUsed).toBe(Math.round(snap.durationSeconds));
    expect(await t.db.usageEvent.count({ where: { userId: user.uid } })).toBe(1);

    // Range requests for the player, owner only.
    const part = await fetch(`${t.url}/api/audio/${jobId}`, {
      headers: { authorization: `Bearer ${user.token}`, range: "bytes=0-99" },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-99/${MP3.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(MP3.subarray(0, 100))).toBe(true);
    const other = await createUser(t);
    const denied = await fetch(`${t.url}/api/audio/${jobId}`, { headers: { authorization: `Bearer ${other.token}` } });
    expect(denied.status).toBe(404);

    // After the retention period: 410 and the snapshot says so.
    await t.db.transcriptionJob.update({ where: { id: jobId }, data: { audioExpiresAt: new Date(Date.now() - 1000) } });
    const { createLogger } = await import("@kikitori/shared/server");
    expect(await sweepExpiredAudio({ db: t.db, store: store(), logger: createLogger("test", "silent") })).toBe(1);
    const gone = await fetch(`${t.url}/api/audio/${jobId}`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(gone.status).toBe(410);
    expect((await gone.json()).error.code).toBe("AUDIO_EXPIRED");
    expect(await objectsUnder(`users/${user.uid}/`)).toBe(0);
    sock.close();
  });

  it("finishes a job after its transcription worker is killed mid-file, charging once", async () => {
    for (const w of workers.splice(0)) w.child.kill("SIGKILL");
    let tx = await startWorker(t, "transcription-worker", { CHUNK_SECONDS: "10", CHUNK_CONCURRENCY: "1" });
    workers.push(tx, await startWorker(t, "text-worker"));
    const user = await createUser(t);
    const sock = await listen(t, user.token);
    const r = await upload(t, user.token, { data: MP3, name: "interview.mp3" }, { model: "meeting", language: "en" });
    expect(r.status).toBe(202);
    const { jobId } = r.body;
    // Killed once a first chunk is done (its live text went out), with more still to do.
    await sock.until((m) => m.jobId === jobId && m.type === "segments");
    tx.child.kill("SIGKILL");
    await tx.exited;
    const doneBefore = await t.db.transcriptChunk.count({ where: { jobId, doneAt: { not: null } } });
    tx = await startWorker(t, "transcription-worker", { CHUNK_SECONDS: "10", CHUNK_CONCURRENCY: "1" });
    workers.push(tx);
    const done = await sock.until(
      (m) => m.jobId === jobId && (m.status === "Correction complete" || m.status === "Failed"),
    );
    expect(done.status).toBe("Correction complete");
    const chunks = await t.db.transcriptChunk.findMany({ where: { jobId } });
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(doneBefore).toBeGreaterThanOrEqual(1);
    const u = await t.db.user.findUniqueOrThrow({ where: { id: user.uid } });
    const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(u.secondsUsed).toBe(Math.round(job.durationSeconds));
    expect(await t.db.usageEvent.count({ where: { userId: user.uid } })).toBe(1);
    expect(wordErrorRate(REFERENCE, job.transcription ?? "")).toBeLessThan(0.4);
    sock.close();
  });
});

function wavHeaderOnly(): Uint8Array {
  const b = Buffer.alloc(44);
  b.write("RIFF", 0);
  b.writeUInt32LE(36, 4);
  b.write("WAVE", 8);
  b.write("fmt ", 12);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(16000, 24);
  b.writeUInt32LE(32000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36);
  b.writeUInt32LE(0, 40);
  return b;
}
