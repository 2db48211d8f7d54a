// The transcription worker as a real process with TRANSCRIPTION_FALLBACK=none and no Whisper model (an
// empty MODELS_DIR): it stays alive but not ready, says why, exports kikitori_speech_model_missing 1,
// registers no BullMQ worker on any queue (so it takes no job), and stops cleanly on SIGTERM. With the
// fallback allowed (the `npm start` default) the same process runs pocketsphinx and is ready.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { QUEUES } from "@kikitori/shared";
import { createRedis } from "@kikitori/shared/server";
import { Queue } from "bullmq";
import { exitWithin, freePort, stackEnv, startService, waitForStatus } from "./service-process.ts";
import { useWorkerStack } from "./worker-stack.ts";

const stack = useWorkerStack();
const emptyModels = mkdtempSync(path.join(os.tmpdir(), "no-models-"));
afterAll(() => rmSync(emptyModels, { recursive: true, force: true }));

const start = (prefix: string, port: number, fallback: "none" | "pocketsphinx") =>
  startService("transcription-worker", {
    NODE_ENV: "test",
    LOG_LEVEL: "info",
    OPS_HOST: "127.0.0.1",
    OPS_PORT: String(port),
    TRANSCRIPTION_ENGINE: "whisper",
    TRANSCRIPTION_FALLBACK: fallback,
    WHISPER_MODEL: "base",
    MODELS_DIR: emptyModels,
    DIARIZATION_ENGINE: "none",
    ...stackEnv(stack.databaseUrl(), prefix),
  });

it("with TRANSCRIPTION_FALLBACK=none and no model: alive, not ready, metric 1, no worker on the queues", async () => {
  const prefix = stack.prefix("tw-nomodel");
  const port = await freePort();
  const svc = start(prefix, port, "none");
  const connection = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "client");
  const queues = [QUEUES.transcription, QUEUES.transcriptionChunk].map((q) => new Queue(q, { connection, prefix }));
  try {
    await waitForStatus(`http://127.0.0.1:${port}/healthz`, 200, svc);
    const ready = JSON.parse(await waitForStatus(`http://127.0.0.1:${port}/readyz`, 503, svc));
    expect(ready.status).toBe("unavailable");
    expect(ready.checks.engine).toMatch(/no speech model: no Whisper model "base"/);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^kikitori_speech_model_missing\{service="transcription-worker"\} 1$/m);
    // The ops server is up only after the decision: by now a consuming worker would be registered.
    for (const q of queues) expect(await q.getWorkers()).toEqual([]);
    expect(svc.output()).toContain("SPEECH MODEL MISSING");

    svc.child.kill("SIGTERM");
    expect(await exitWithin(svc, 10_000)).toBe(0);
  } finally {
    if (svc.child.exitCode === null) svc.child.kill("SIGKILL");
    for (const q of queues) await q.close();
    connection.disconnect();
  }
}, 60_000);

it("with the pocketsphinx fallback allowed: ready, metric 0, consuming the queues", async () => {
  const prefix = stack.prefix("tw-fallback");
  const port = await freePort();
  const svc = start(prefix, port, "pocketsphinx");
  const connection = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "client");
  const queue = new Queue(QUEUES.transcriptionChunk, { connection, prefix });
  try {
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, svc);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^kikitori_speech_model_missing\{service="transcription-worker"\} 0$/m);
    expect((await queue.getWorkers()).length).toBeGreaterThan(0);
    svc.child.kill("SIGTERM");
    expect(await exitWithin(svc, 10_000)).toBe(0);
  } finally {
    if (svc.child.exitCode === null) svc.child.kill("SIGKILL");
    await queue.close();
    connection.disconnect();
  }
}, 60_000);
