// An optional diarization engine never fails a job: the transcription handler, on a real recording
// with Postgres and the S3 server, is given the sherpa engine with a corrupt (truncated) model file,
// told apart the speakers with the classic engine instead, stored the notice on the job, and the
// snapshot the page reads carries it.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jest } from "@jest/globals";
import { createObjectStore, type ObjectStore } from "@kikitori/shared/server";
import type { Job } from "bullmq";
import { pino } from "pino";
import { toSnapshot } from "../../services/gateway/src/jobs/snapshot.ts";
import { ClassicDiarizationEngine } from "../../services/transcription-worker/src/diarization/classic.ts";
import { SherpaDiarizationEngine } from "../../services/transcription-worker/src/diarization/sherpa.ts";
import { processTranscription } from "../../services/transcription-worker/src/handlers/transcribe.ts";
import { createTestDatabase, insertJob, insertVerifiedUser, uniquePrefix } from "../support/db.ts";
import { testOnnxModels } from "../support/onnx-models.ts";

jest.setTimeout(180_000);

const MP3 = fileURLToPath(new URL("../fixtures/audio/interview-en.mp3", import.meta.url));

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let store: ObjectStore;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-diar-fallback-"));
  database = await createTestDatabase();
  store = createObjectStore({
    S3_ENDPOINT: process.env.S3_ENDPOINT!,
    S3_ACCESS_KEY: process.env.S3_ACCESS_KEY!,
    S3_SECRET_KEY: process.env.S3_SECRET_KEY!,
    S3_BUCKET: `b-${uniquePrefix("diar")}`.toLowerCase(),
    S3_REGION: "us-east-1",
  });
  await store.ensureBucket();
});
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** The handler's first run on a new job, up to where it hands the chunks to the queue. */
async function splitJob(diarization: SherpaDiarizationEngine | ClassicDiarizationEngine): Promise<string> {
  const db = database.db;
  const { uid } = await insertVerifiedUser(db);
  const jobId = randomUUID();
  const audioKey = `users/${uid}/audio/${jobId}.mp3`;
  await store.put(audioKey, readFileSync(MP3), statSync(MP3).size, "audio/mpeg");
  await insertJob(db, uid, { id: jobId, audioKey, durationSeconds: 30, audioLanguage: "en" });
  const queued: unknown[] = [];
  const deps = {
    db,
    store,
    publish: async () => {},
    logger: pino({ level: "silent" }),
    addChunkJobs: async (_parent: Job, chunks: unknown[]) => {
      queued.push(...chunks);
    },
    engine: { name: "pocketsphinx" },
    diarization,
    chunkSeconds: 30,
    tmpDir: dir,
  };
  const job = { id: jobId, data: { jobId, userId: uid, audioKey, correlationId: "c" } } as unknown as Job;
  // Without a BullMQ token the handler cannot wait for its chunks: it says they are not done yet.
  await expect(processTranscription(deps, job)).rejects.toThrow(/chunks are not transcribed yet/);
  expect(queued.length).toBeGreaterThan(0);
  return jobId;
}

it("a corrupt sherpa model: the classic engine tells the speakers apart, the job goes on and carries the notice", async () => {
  const models = testOnnxModels();
  const cut = path.join(dir, "truncated-segmentation.onnx");
  const bytes = readFileSync(models.segmentation);
  writeFileSync(cut, bytes.subarray(0, bytes.length >> 1));
  const jobId = await splitJob(new SherpaDiarizationEngine({ segmentation: cut, embedding: models.embedding }));

  const row = await database.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  expect(row.status).toBe("transcribing");
  expect(row.diarizationEngine).toBe("classic");
  expect(row.notices).toEqual(["diarization_fallback"]);
  const spans = row.speakerSpans as Array<{ start: number; end: number; speaker: number }>;
  expect(spans.length).toBeGreaterThan(0);
  expect(spans.every((s) => s.speaker >= 0 && s.end > s.start)).toBe(true);
  expect(toSnapshot(row).notices).toEqual(["diarization_fallback"]);
});

it("working sherpa models: sherpa's speakers, no notice", async () => {
  const models = testOnnxModels();
  const engine = new SherpaDiarizationEngine({ segmentation: models.segmentation, embedding: models.embedding });
  const jobId = await splitJob(engine);
  const row = await database.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  expect(row.diarizationEngine).toBe(engine.name);
  expect(row.notices).toEqual([]);
  expect(toSnapshot(row).notices).toEqual([]);
});

it("the classic engine standing in for sherpa since start: every job carries the notice", async () => {
  const jobId = await splitJob(new ClassicDiarizationEngine({ notice: "diarization_fallback" }));
  const row = await database.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  expect(row.diarizationEngine).toBe("classic");
  expect(row.notices).toEqual(["diarization_fallback"]);
});
