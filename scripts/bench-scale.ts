// `npm run bench:scale`: the scale-out numbers of this machine, on the real stack run as separate
// processes (gateways and workers as in production, one PostgreSQL database, one Redis prefix, an
// s3rver):
//   1. jobs per minute (upload → corrected text) with 1, 2 and 3 transcription worker processes
//      (CHUNK_CONCURRENCY=1 each, one text worker) on a batch of short clips;
//   2. socket fan-out latency (worker-side publish → message on the browser's socket) with 1,000 open
//      sockets spread over two gateway processes: p50/p99 of a burst that reaches every socket at once,
//      and of single updates while all sockets stay open.
// Settings: BENCH_JOBS (8), BENCH_CLIP_SECONDS (15), BENCH_SOCKETS (1000), BENCH_ROUNDS (20).
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRedis, ffmpegPath, publishProgress } from "@kikitori/shared/server";
import WebSocket from "ws";
import { stopService } from "../tests/infra/service-process.ts";
import { type Cluster, startCluster, uploadWithRequestId, type WorkerProcess } from "../tests/scale/cluster.ts";
import { startS3Standin } from "../tests/support/global-setup.ts";
import { listen } from "../tests/support/pipeline.ts";

const root = path.resolve(import.meta.dirname, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "kikitori-bench-scale-"));
const JOBS = Number(process.env.BENCH_JOBS ?? 8);
const CLIP_SECONDS = Number(process.env.BENCH_CLIP_SECONDS ?? 15);
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const SOCKETS_PER_USER = 4; // two on each gateway

function clip(seconds: number): Buffer {
  const out = path.join(tmp, `clip-${seconds}.mp3`);
  const src = path.join(root, "tests/fixtures/audio/interview-en.mp3");
  execFileSync(ffmpegPath(), ["-v", "error", "-y", "-i", src, "-t", String(seconds), "-c", "copy", out]);
  return readFileSync(out);
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** Uploads `n` clips at once through the gateway and waits until every one is corrected. */
async function batch(c: Cluster, gatewayUrl: string, audio: Buffer, n: number) {
  const user = await c.createUser("premium");
  const sock = await listen({ url: gatewayUrl } as Parameters<typeof listen>[0], user.token);
  const t0 = performance.now();
  const uploads = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      uploadWithRequestId(gatewayUrl, user.token, { data: audio, name: `clip-${i}.mp3` }, `bench-${i}-${Date.now()}`),
    ),
  );
  for (const u of uploads) if (u.status !== 202) throw new Error(`upload failed: ${JSON.stringify(u.body)}`);
  const ids = uploads.map((u) => u.body.jobId as string);
  const transcribed = await Promise.all(
    ids.map((id) =>
      sock.until((m) => m.jobId === id && (m.status === "Transcription complete" || m.status === "Failed"), 900_000),
    ),
  );
  const tTranscribed = performance.now();
  const done = await Promise.all(
    ids.map((id) =>
      sock.until((m) => m.jobId === id && (m.status === "Correction complete" || m.status === "Failed"), 900_000),
    ),
  );
  const tDone = performance.now();
  sock.close();
  const failed = [...transcribed, ...done].filter((m) => m.status === "Failed");
  if (failed.length) throw new Error(`jobs failed: ${JSON.stringify(failed)}`);
  return { transcribedS: (tTranscribed - t0) / 1000, doneS: (tDone - t0) / 1000 };
}

/** An authenticated socket that reports each progress message it gets. */
async function openSocket(
  url: string,
  token: string,
  onEvent: (jobId: string, at: number) => void,
): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("socket not ready within 30 s")), 30_000);
    ws.once("open", () => ws.send(JSON.stringify({ type: "auth", token })));
    ws.once("error", reject);
    ws.on("message", (d) => {
      const m = JSON.parse(d.toString());
      if (m.type === "ready") {
        clearTimeout(timer);
        resolve();
      } else if (m.jobId) onEvent(m.jobId, performance.now());
    });
  });
  return ws;
}

const s3 = await startS3Standin();

const rows: string[] = [];
const log = (line: string) => {
  rows.push(line);
  console.log(line);
};
const c = await startCluster({ logLevel: "warn" });
try {
  // ---- 1. jobs per minute with 1, 2, 3 transcription workers
  const audio = clip(CLIP_SECONDS);
  const gw = await c.startGateway();
  await c.startWorker("text-worker");
  const tx: WorkerProcess[] = [];
  const txEnv = { CHUNK_CONCURRENCY: "1" };
  tx.push(await c.startWorker("transcription-worker", txEnv));
  await batch(c, gw.url, audio, 1); // warm-up: first-run compile caches, connections
  log(
    `jobs per minute, ${JOBS} clips of ${CLIP_SECONDS} s uploaded at once (upload → corrected text), CHUNK_CONCURRENCY=1:`,
  );
  for (const n of [1, 2, 3]) {
    while (tx.length < n) tx.push(await c.startWorker("transcription-worker", txEnv));
    const r = await batch(c, gw.url, audio, JOBS);
    log(
      `  ${n} transcription worker${n > 1 ? "s" : " "}  ${((JOBS * 60) / r.doneS).toFixed(1).padStart(6)} jobs/min` +
        `   (all transcribed in ${r.transcribedS.toFixed(1)} s, all corrected in ${r.doneS.toFixed(1)} s;` +
        ` ${((JOBS * CLIP_SECONDS) / r.doneS).toFixed(1)} audio-s/s)`,
    );
  }
  await Promise.all(c.workers.map(stopService));

  // ---- 2. fan-out latency with SOCKETS open sockets on two gateways
  const gw2 = await c.startGateway();
  const gateways = [gw, gw2];
  const users = await Promise.all(
    Array.from({ length: Math.ceil(SOCKETS / SOCKETS_PER_USER) }, async () => {
      const uid = randomUUID();
      return { uid, token: await c.signer.sign({ sub: uid, email: `${uid}@example.com`, email_verified: true }) };
    }),
  );
  const sentAt = new Map<string, number>();
  let samples: number[] = [];
  let received = 0;
  const onEvent = (jobId: string, at: number) => {
    const t = sentAt.get(jobId);
    if (t === undefined) return;
    samples.push(at - t);
    received++;
  };
  const sockets: WebSocket[] = [];
  const tOpen = performance.now();
  for (let i = 0; i < users.length; i++) {
    const opens = [];
    for (let k = 0; k < SOCKETS_PER_USER && sockets.length + opens.length < SOCKETS; k++) {
      opens.push(openSocket(gateways[k % 2].url, users[i].token, onEvent));
    }
    sockets.push(...(await Promise.all(opens)));
  }
  const openS = (performance.now() - tOpen) / 1000;
  const open = await Promise.all(gateways.map((g) => fetch(`${g.opsUrl}/metrics`).then((r) => r.text())));
  const perGateway = open.map((t) => /^websocket_open_sockets (\d+)/m.exec(t)?.[1] ?? "?");
  log(
    `socket fan-out, ${sockets.length} sockets open (${perGateway.join(" + ")} on two gateways, ${users.length} users × ${SOCKETS_PER_USER}; opened in ${openS.toFixed(1)} s):`,
  );

  const publisher = createRedis(c.env.REDIS_URL, "worker");
  const waitFor = async (n: number, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (received < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    if (received < n) throw new Error(`only ${received} of ${n} deliveries arrived`);
  };
  const sendTo = (userId: string, jobId: string) => {
    sentAt.set(jobId, performance.now());
    return publishProgress(publisher, c.prefix, {
      userId,
      event: { jobId, status: "Transcription in progress", transcriptionProgress: 50 },
    });
  };

  // Bursts: one update for every user at once, i.e. a message on every open socket.
  for (let round = 0; round < ROUNDS; round++) {
    received = 0;
    await Promise.all(users.map((u, i) => sendTo(u.uid, `burst-${round}-${i}`)));
    await waitFor(sockets.length);
    await new Promise((r) => setTimeout(r, 50));
  }
  const burst = [...samples].sort((a, b) => a - b);
  log(
    `  burst to all ${sockets.length} sockets ×${ROUNDS}: p50 ${ms(quantile(burst, 0.5))}, p99 ${ms(quantile(burst, 0.99))}, max ${ms(burst.at(-1)!)}`,
  );

  // Single updates (one user's 4 sockets) while every socket stays open.
  samples = [];
  for (let i = 0; i < 200; i++) {
    received = 0;
    await sendTo(users[i % users.length].uid, `single-${i}`);
    await waitFor(SOCKETS_PER_USER);
  }
  const single = [...samples].sort((a, b) => a - b);
  log(
    `  single update (4 sockets of one user) ×200: p50 ${ms(quantile(single, 0.5))}, p99 ${ms(quantile(single, 0.99))}`,
  );
  for (const s of sockets) s.close();
  publisher.disconnect();
} finally {
  await c.close();
  await s3.close();
}
console.log(
  `\nKikitori scale-out bench (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "?"}; engine pocketsphinx, correction offline)\n${rows.join("\n")}`,
);
process.exit(0);
