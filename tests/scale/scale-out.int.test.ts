// Scale-out proof on one machine: two gateway processes and three worker processes (two transcription,
// one correction) on one PostgreSQL database, one Redis prefix and one S3 server. A socket on gateway 1
// follows a job uploaded through gateway 2; one transcription worker gets SIGTERM while it is in the
// middle of a chunk: it finishes that chunk and exits 0, the other worker finishes the recording, and
// the minutes are charged once. The upload's request id is followed through the job row, both jobs'
// log lines, and every socket message; every process serves Prometheus metrics.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { jest } from "@jest/globals";
import { exitWithin } from "../infra/service-process.ts";
import { listen } from "../support/pipeline.ts";
import { wordErrorRate } from "../support/wer.ts";
import {
  type Cluster,
  childProcessNames,
  logLines,
  metricValue,
  startCluster,
  uploadWithRequestId,
  type WorkerProcess,
} from "./cluster.ts";

jest.setTimeout(180_000);

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/audio");
const MP3 = readFileSync(path.join(FIXTURES, "interview-en.mp3"));
const REFERENCE = readFileSync(path.join(FIXTURES, "interview-en.txt"), "utf8");
const ORDER = [
  "File uploaded",
  "Transcription started",
  "Transcription complete",
  "Correction started",
  "Correction complete",
];

let c: Cluster;
afterAll(async () => {
  await c?.close();
});

it("two gateways, three workers: progress crosses gateways, a SIGTERM mid-chunk loses nothing, usage is charged once", async () => {
  c = await startCluster({ logLevel: "info" });
  const gw1 = await c.startGateway();
  // 10 s chunks, one at a time per process: the 61 s fixture becomes ~7 chunks shared by both workers.
  const txEnv = { CHUNK_SECONDS: "10", CHUNK_CONCURRENCY: "1", SHUTDOWN_TIMEOUT_MS: "60000" };
  const [gw2, txA, txB, corr] = await Promise.all([
    c.startGateway(),
    c.startWorker("transcription-worker", txEnv),
    c.startWorker("transcription-worker", txEnv),
    c.startWorker("text-worker"),
  ]);

  const user = await c.createUser();
  const sock1 = await listen(c.asTestGateway(gw1), user.token);
  const sock2 = await listen(c.asTestGateway(gw2), user.token);
  const requestId = `scale-${randomUUID()}`;
  const r = await uploadWithRequestId(gw2.url, user.token, { data: MP3, name: "interview.mp3" }, requestId);
  expect(r.status).toBe(202);
  expect(r.requestId).toBe(requestId);
  const { jobId } = r.body as { jobId: string };

  // Mid-job: chunks are being transcribed; pick a worker that is running pocketsphinx right now.
  await sock1.until((m) => m.jobId === jobId && m.status === "Transcription in progress", 120_000);
  let victim: WorkerProcess | undefined;
  const deadline = Date.now() + 60_000;
  while (!victim && Date.now() < deadline) {
    victim = [txA, txB].find((w) => childProcessNames(w.child.pid!).includes("pocketsphinx_co"));
    if (!victim) await new Promise((res) => setTimeout(res, 25));
  }
  expect(victim).toBeDefined();
  const survivor = victim === txA ? txB : txA;
  const doneAtSigterm = await c.db.transcriptChunk.count({ where: { jobId, doneAt: { not: null } } });
  const chunkCount = (await c.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).chunkCount;
  expect(doneAtSigterm).toBeLessThan(chunkCount);
  victim!.child.kill("SIGTERM");

  // Graceful: the running chunk finishes, then the process exits 0.
  expect(await exitWithin(victim!, 90_000)).toBe(0);
  const victimLog = logLines(victim!);
  const stopAt = victimLog.findIndex((l) => l.msg === "shutting down");
  expect(stopAt).toBeGreaterThanOrEqual(0);
  const finishedDuringShutdown = victimLog
    .slice(stopAt)
    .filter((l) => l.msg === "job completed" && l.queue === "transcription-chunk" && String(l.jobId).startsWith(jobId));
  expect(finishedDuringShutdown.length).toBe(1);
  expect(victimLog.some((l) => l.msg === "job failed")).toBe(false);

  // The rest happens elsewhere, and both gateways' sockets see it.
  const done = await sock1.until(
    (m) => m.jobId === jobId && (m.status === "Correction complete" || m.status === "Failed"),
    150_000,
  );
  expect(done.status).toBe("Correction complete");
  await sock2.until((m) => m.jobId === jobId && m.status === "Correction complete", 10_000);
  for (const sock of [sock1, sock2]) {
    const mine = sock.messages.filter((m) => m.jobId === jobId);
    expect(mine.map((m) => m.status).filter((s) => ORDER.includes(s))).toEqual(ORDER);
    // Every socket message carries the upload's correlation id.
    expect(mine.filter((m) => m.correlationId !== requestId)).toEqual([]);
  }
  // The survivor logs "transcription complete" after it has handed over to correction and cleaned up
  // the chunk files, so the line may land a moment after the socket's "Correction complete".
  const logDeadline = Date.now() + 15_000;
  while (
    !logLines(survivor).some((l) => l.msg === "transcription complete" && l.jobId === jobId) &&
    Date.now() < logDeadline
  ) {
    await new Promise((res) => setTimeout(res, 100));
  }
  const survivorLog = logLines(survivor);
  expect(survivorLog.some((l) => l.msg === "transcription complete" && l.jobId === jobId)).toBe(true);
  expect(
    survivorLog.filter((l) => l.msg === "job completed" && l.queue === "transcription-chunk").length,
  ).toBeGreaterThan(0);

  // Nothing lost, nothing charged twice.
  const job = await c.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  expect(job.status).toBe("completed");
  expect(job.correlationId).toBe(requestId);
  const chunks = await c.db.transcriptChunk.findMany({ where: { jobId } });
  expect(chunks.length).toBe(job.chunkCount);
  expect(chunks.every((ch) => ch.doneAt !== null)).toBe(true);
  expect(wordErrorRate(REFERENCE, job.transcription ?? "")).toBeLessThan(0.4);
  const u = await c.db.user.findUniqueOrThrow({ where: { id: user.uid } });
  expect(u.secondsUsed).toBe(Math.round(job.durationSeconds));
  expect(await c.db.usageEvent.count({ where: { userId: user.uid } })).toBe(1);

  // One correlation id from the upload request through both jobs: every log line about this job, in
  // every process, carries it.
  const gw2Log = logLines(gw2);
  expect(gw2Log.find((l) => l.msg === "upload accepted")?.correlationId).toBe(requestId);
  expect(logLines(gw1).some((l) => l.req?.url === "/api/upload")).toBe(false); // uploaded through gateway 2 only
  for (const w of [victim!, survivor, corr]) {
    const lines = logLines(w).filter((l) => JSON.stringify(l).includes(jobId));
    expect({ worker: w.name, lines: lines.length > 0 }).toEqual({ worker: w.name, lines: true });
    expect(lines.filter((l) => l.correlationId !== requestId)).toEqual([]);
  }
  expect(logLines(corr).some((l) => l.msg === "correction complete" && l.correlationId === requestId)).toBe(true);

  // Prometheus on every process.
  const [m1, m2] = await Promise.all([gw1, gw2].map((g) => fetch(`${g.opsUrl}/metrics`).then((x) => x.text())));
  expect(metricValue(m1, "websocket_open_sockets")).toBe(1);
  expect(metricValue(m2, "http_request_duration_seconds_count", { route: "/api/upload", status: "202" })).toBe(1);
  const mt = await survivor.metrics();
  expect(
    metricValue(mt, "kikitori_job_duration_seconds_count", { queue: "transcription-chunk", status: "completed" }),
  ).toBeGreaterThan(0);
  expect(metricValue(mt, "kikitori_job_duration_seconds_count", { queue: "transcription", status: "completed" })).toBe(
    1,
  );
  expect(metricValue(mt, "kikitori_engine_seconds_per_audio_second_count", { engine: "pocketsphinx" })).toBeGreaterThan(
    0,
  );
  expect(metricValue(mt, "kikitori_queue_depth", { queue: "transcription-chunk", state: "waiting" })).toBe(0);
  const mc = await corr.metrics();
  expect(metricValue(mc, "kikitori_job_duration_seconds_count", { queue: "correction", status: "completed" })).toBe(1);
  expect(metricValue(mc, "kikitori_queue_depth", { queue: "correction", state: "waiting" })).toBe(0);

  sock1.close();
  sock2.close();
});
