// `npm run bench:pipeline`: prints seconds to transcript and to corrected text for 1 and 10 minutes of
// speech with 1 and 2 transcription worker processes, and the upload time of 20 MiB through
// POST /api/upload versus a raw loopback HTTP copy. Uses the real stack: a gateway, worker processes,
// PostgreSQL, Redis and an s3rver, each run on its own database and Redis prefix.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { ffmpegPath } from "@kikitori/shared/server";
import { type ServiceProcess, stopService } from "../tests/infra/service-process.ts";
import { startTestGateway, type TestGateway } from "../tests/support/gateway.ts";
import { startS3Standin } from "../tests/support/global-setup.ts";
import { createUser, listen, startWorker, upload } from "../tests/support/pipeline.ts";

const root = path.resolve(import.meta.dirname, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "kikitori-bench-"));
const oneMinute = readFileSync(path.join(root, "tests/fixtures/audio/interview-en.mp3"));

function tenMinutes(): Buffer {
  const list = path.join(tmp, "list.txt");
  const src = path.join(root, "tests/fixtures/audio/interview-en.mp3");
  writeFileSync(list, Array.from({ length: 10 }, () => `file '${src}'`).join("\n"));
  const out = path.join(tmp, "ten.mp3");
  execFileSync(ffmpegPath(), ["-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", out]);
  return readFileSync(out);
}

function wav20MiB(): Buffer {
  const out = path.join(tmp, "20mib.wav");
  // 16 kHz mono 16-bit: 32,000 bytes per second → 655 s ≈ 20 MiB (just under the cap).
  execFileSync(ffmpegPath(), [
    "-v",
    "error",
    "-y",
    "-stream_loop",
    "-1",
    "-i",
    path.join(root, "tests/fixtures/audio/interview-en.mp3"),
    "-t",
    "655",
    "-ar",
    "16000",
    "-ac",
    "1",
    "-c:a",
    "pcm_s16le",
    out,
  ]);
  return readFileSync(out);
}

async function runJob(t: TestGateway, audio: Buffer) {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { plan: "premium" } });
  const sock = await listen(t, user.token);
  const t0 = performance.now();
  const r = await upload(t, user.token, { data: audio, name: "bench.mp3" }, { model: "meeting", language: "en" });
  if (r.status !== 202) throw new Error(`upload failed: ${JSON.stringify(r.body)}`);
  const uploaded = performance.now();
  await sock.until((m) => m.jobId === r.body.jobId && m.status === "Transcription complete", 900_000);
  const transcript = performance.now();
  const done = await sock.until(
    (m) => m.jobId === r.body.jobId && (m.status === "Correction complete" || m.status === "Failed"),
    900_000,
  );
  const corrected = performance.now();
  sock.close();
  if (done.status !== "Correction complete") throw new Error(`job failed: ${JSON.stringify(done)}`);
  return { upload: (uploaded - t0) / 1000, transcript: (transcript - t0) / 1000, corrected: (corrected - t0) / 1000 };
}

async function rawLoopback(bytes: Buffer): Promise<number> {
  const server = http.createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => res.end("ok"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  const t0 = performance.now();
  await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: new Uint8Array(bytes) }).then((r) => r.text());
  const s = (performance.now() - t0) / 1000;
  server.close();
  return s;
}

const s3 = await startS3Standin();
process.env.TEST_LOG_LEVEL ??= "error";

const rows: string[] = [];
const t = await startTestGateway({ env: { RATE_LIMIT_AUTH_PER_IP_PER_MINUTE: "1000" } });
const workers: ServiceProcess[] = [];
try {
  workers.push(await startWorker(t, "text-worker"));
  const ten = tenMinutes();
  for (const n of [1, 2]) {
    const tx: ServiceProcess[] = [];
    for (let i = 0; i < n; i++) tx.push(await startWorker(t, "transcription-worker", { CHUNK_CONCURRENCY: "1" }));
    for (const [label, audio] of [
      ["1 min", oneMinute],
      ["10 min", ten],
    ] as const) {
      const r = await runJob(t, audio);
      rows.push(
        `${label.padEnd(7)} ${String(n).padStart(2)} worker(s)   upload ${r.upload.toFixed(2).padStart(6)} s   transcript ${r.transcript.toFixed(1).padStart(6)} s   corrected ${r.corrected.toFixed(1).padStart(6)} s`,
      );
      console.log(rows.at(-1));
    }
    for (const w of tx) await stopService(w);
  }
  const big = wav20MiB();
  const raw = await rawLoopback(big);
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { plan: "premium" } });
  const t0 = performance.now();
  const r = await upload(t, user.token, { data: big, name: "20mib.wav" }, { model: "meeting", language: "en" });
  const up = (performance.now() - t0) / 1000;
  rows.push(
    `upload of ${(big.length / 1048576).toFixed(2)} MiB: POST /api/upload ${up.toFixed(2)} s (status ${r.status}; includes format check, full decode check, ffprobe and the S3 write) vs raw loopback HTTP copy ${raw.toFixed(3)} s`,
  );
  console.log(rows.at(-1));
} finally {
  await Promise.all(workers.map(stopService));
  await t.close();
  await s3.close();
}
console.log(
  `\nKikitori pipeline bench (${os.cpus().length} cores, engine pocketsphinx, correction offline)\n${rows.join("\n")}`,
);
process.exit(0);
