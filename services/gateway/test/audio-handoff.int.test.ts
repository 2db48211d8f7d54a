// The hand-off of accepted recordings to the object store, through real gateway processes, PostgreSQL,
// Redis and the store, with a stand-in in front of the store that can refuse its PUTs (an outage of the
// store's writes, the only thing faked): a recording a stopped gateway had not stored is taken over by
// the next gateway on the same disk; the player waits for a recording on its way; a job deleted
// meanwhile leaves no object; the retention schedule fails a job whose recording never arrived.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { QUEUES } from "@kikitori/shared";
import { AUDIO_NOT_STORED, createLogger, createObjectStore, createQueue, createRedis } from "@kikitori/shared/server";
import { freePort, type ServiceProcess, startService, waitForStatus } from "../../../tests/infra/service-process.ts";
import { startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { audioStored, createUser } from "../../../tests/support/pipeline.ts";
import { toneWav } from "../../../tests/support/wav.ts";
import { failUnstoredAudio } from "../../transcription-worker/src/handlers/retention.ts";
import { loadGatewayConfig } from "../src/config.ts";

let t: TestGateway;
let proxy: http.Server;
let proxyUrl: string;
let failPuts = false;
let putsRefused = 0;
const tmpDir = mkdtempSync(path.join(os.tmpdir(), "handoff-int-"));
const gateways: ServiceProcess[] = [];

beforeAll(async () => {
  t = await startTestGateway();
  // The store, reached through a stand-in that refuses PUTs (503, as S3 does when it is overloaded) while told to.
  const target = new URL(t.env.S3_ENDPOINT);
  proxy = http.createServer((req, res) => {
    if (failPuts && req.method === "PUT") {
      putsRefused++;
      req.resume();
      res.writeHead(503, { "content-type": "application/xml" });
      res.end(
        '<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
      );
      return;
    }
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  for (const g of gateways) g.child.kill("SIGKILL");
  await new Promise((r) => proxy.close(r));
  await t?.close();
  rmSync(tmpDir, { recursive: true, force: true });
});

/** A gateway process on the stand-in store and the shared UPLOAD_TMP_DIR; its URL. */
async function startGateway(env: Record<string, string> = {}): Promise<{ url: string; svc: ServiceProcess }> {
  const port = await freePort();
  const svc = startService("gateway", {
    ...t.env,
    S3_ENDPOINT: proxyUrl,
    UPLOAD_TMP_DIR: tmpDir,
    PORT: String(port),
    OPS_PORT: String(await freePort()),
    ...env,
  });
  gateways.push(svc);
  await waitForStatus(`http://127.0.0.1:${port}/healthz`, 200, svc, 60_000);
  return { url: `http://127.0.0.1:${port}`, svc };
}

const WAV = toneWav(96_044);

async function uploadTo(url: string, token: string): Promise<string> {
  const form = new FormData();
  form.append("model", "meeting");
  form.append("file", new Blob([new Uint8Array(WAV)], { type: "audio/wav" }), "interview.wav");
  const r = await fetch(`${url}/api/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const body = await r.json();
  expect([r.status, body.message]).toEqual([202, "File uploaded"]);
  return body.jobId;
}

const store = () => createObjectStore(loadGatewayConfig(t.env));

async function until(check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("answers 202 while the store refuses writes; a gateway started after the stop stores and queues the recording", async () => {
  const { token, uid } = await createUser(t);
  const a = await startGateway();
  failPuts = true;
  const jobId = await uploadTo(a.url, token);
  expect(await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).toMatchObject({
    status: "queued",
    audioPending: true,
    reservedSeconds: 3,
  });
  await until(() => putsRefused >= 1);
  a.svc.child.kill("SIGTERM");
  await a.svc.exited;
  // Stopped mid-retry: the recording and its marker wait on the disk.
  const [folder] = readdirSync(tmpDir);
  expect(readdirSync(path.join(tmpDir, folder)).sort()).toEqual(["audio", "handoff.json"]);

  failPuts = false;
  const b = await startGateway({ UPLOAD_HANDOFF_STALE_MS: "0" });
  await audioStored(t, jobId);
  const job = await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  expect((await store().stat(job.audioKey))?.size).toBe(WAV.length);
  const redis = createRedis(t.env.REDIS_URL, "producer");
  try {
    // Queued right after its audio is marked stored.
    const queue = createQueue(QUEUES.transcription, redis, t.env.REDIS_PREFIX);
    await until(async () => Boolean(await queue.getJob(jobId)));
    const queued = await queue.getJob(jobId);
    expect(queued?.data).toEqual({ jobId, userId: uid, audioKey: job.audioKey, correlationId: job.correlationId });
  } finally {
    redis.disconnect();
  }
  await until(() => readdirSync(tmpDir).length === 0);
  const audio = await fetch(`${b.url}/api/audio/${jobId}`, { headers: { authorization: `Bearer ${token}` } });
  expect([audio.status, (await audio.arrayBuffer()).byteLength]).toEqual([200, WAV.length]);
}, 120_000);

it("serves the audio of a recording still on its way once it arrives; a job deleted meanwhile leaves no object", async () => {
  const g = await startGateway();
  const { token, uid } = await createUser(t);
  failPuts = true;
  const jobId = await uploadTo(g.url, token);
  const audio = fetch(`${g.url}/api/audio/${jobId}`, { headers: { authorization: `Bearer ${token}` } });
  await new Promise((r) => setTimeout(r, 300));
  failPuts = false;
  const served = await audio;
  expect([served.status, (await served.arrayBuffer()).byteLength]).toEqual([200, WAV.length]);

  failPuts = true;
  const doomed = await uploadTo(g.url, token);
  const del = await fetch(`${g.url}/api/transcriptions/${doomed}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${token}` },
  });
  expect(del.status).toBe(204);
  failPuts = false;
  // The next try stores it, finds the job gone and takes the object back out.
  await until(() => readdirSync(tmpDir).length === 0);
  const keys = await store().removePrefix(`users/${uid}/audio/${doomed}`);
  expect(keys).toBe(0);
}, 120_000);

it("fails a job whose recording never reached the store, giving its minutes back; a retry asks for a new upload", async () => {
  const g = await startGateway();
  const { token } = await createUser(t);
  failPuts = true;
  const jobId = await uploadTo(g.url, token);
  g.svc.child.kill("SIGKILL"); // gone with its disk, as far as the store knows
  await g.svc.exited;
  await t.db.$executeRawUnsafe(
    `UPDATE "transcription_jobs" SET "created_at" = now() - interval '31 minutes' WHERE "id" = $1::uuid`,
    jobId,
  );
  const logger = createLogger("test", "silent");
  expect(await failUnstoredAudio({ db: t.db, store: store(), logger })).toBe(1);
  expect(await failUnstoredAudio({ db: t.db, store: store(), logger })).toBe(0);
  expect(await t.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } })).toMatchObject({
    status: "failed",
    errorCode: "SERVICE_UNAVAILABLE",
    errorMessage: AUDIO_NOT_STORED,
    reservedSeconds: 0,
  });
  const retry = await fetch(`${t.url}/api/transcriptions/${jobId}/retry`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  expect([retry.status, (await retry.json()).error.code]).toEqual([410, "AUDIO_EXPIRED"]);
  failPuts = false;
  rmSync(tmpDir, { recursive: true, force: true });
}, 120_000);
