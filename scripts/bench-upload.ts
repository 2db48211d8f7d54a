/**
 * `npm run bench:upload [-- runs megabytes]`: how long the single POST /api/upload takes to answer for
 * a WAV of `megabytes` MB (default 19) against a raw loopback HTTP POST of the same bytes to a tiny
 * node server that only reads them, and a resumable upload (tus: creation + one PATCH) of the same
 * file; `runs` rounds (default 7), each kind once per round, interleaved. Prints min and median of each
 * and the ratios. Uses the real stack: a gateway, PostgreSQL, Redis and the embedded object store in
 * its own process, as `npm start` runs it (scripts/objectstore.mjs; its own database, Redis prefix and
 * bucket). Needs PostgreSQL and Redis (DATABASE_URL, REDIS_URL; default 127.0.0.1).
 */

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createObjectStore } from "../services/shared/src/server/storage.ts";
import { startTestGateway } from "../tests/support/gateway.ts";
import { createUser, upload } from "../tests/support/pipeline.ts";
import { toneWav } from "../tests/support/wav.ts";

const RUNS = Number(process.argv[2] ?? 7);
const MEGABYTES = Number(process.argv[3] ?? 19);

/** A 16 kHz mono 16-bit WAV of about `bytes` bytes: a tone. */
const wav = (bytes: number) => toneWav(bytes);

/** Seconds of one call. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return (performance.now() - t0) / 1000;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)] };
};

/** The embedded object store in its own process (as `npm start` runs it), on a free port. */
async function startObjectStore(): Promise<{ close: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-bench-s3-"));
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const env = {
    ...process.env,
    EMBEDDED_S3_PORT: String(port),
    EMBEDDED_S3_DIR: dir,
    S3_BUCKET: `bench-${randomBytes(4).toString("hex")}`,
    S3_ACCESS_KEY: `bench-${randomBytes(8).toString("hex")}`,
    S3_SECRET_KEY: randomBytes(32).toString("base64url"),
  };
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/objectstore.mjs"], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("listening") && resolve());
    child.once("exit", (code) => reject(new Error(`objectstore exited with ${code}`)));
  });
  Object.assign(process.env, {
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_BUCKET: env.S3_BUCKET,
    S3_ACCESS_KEY: env.S3_ACCESS_KEY,
    S3_SECRET_KEY: env.S3_SECRET_KEY,
    S3_REGION: "us-east-1",
  });
  process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/postgres";
  process.env.REDIS_URL ??= "redis://127.0.0.1:6379";
  return {
    close: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const s3 = await startObjectStore();
process.env.TEST_LOG_LEVEL ??= "error";
const raw = http.createServer((req, res) => {
  req.on("data", () => {});
  req.on("end", () => res.end("ok"));
});
await new Promise<void>((r) => raw.listen(0, "127.0.0.1", () => r()));
const rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`;
const t = await startTestGateway();
try {
  const data = wav(MEGABYTES * 1000 * 1000);
  const body = new Uint8Array(data);
  const times = { raw: [] as number[], store: [] as number[], post: [] as number[], tus: [] as number[] };
  // The floor the store sets: one PUT of the same bytes straight to it (what every upload must wait for).
  const store = createObjectStore({
    S3_ENDPOINT: process.env.S3_ENDPOINT ?? "",
    S3_ACCESS_KEY: process.env.S3_ACCESS_KEY ?? "",
    S3_SECRET_KEY: process.env.S3_SECRET_KEY ?? "",
    S3_BUCKET: process.env.S3_BUCKET ?? "",
    S3_REGION: "us-east-1",
  });
  await store.ensureBucket();
  for (let i = 0; i < RUNS; i++) {
    // A fresh premium user per round: the minutes never run out.
    const { token } = await createUser(t, { plan: "premium" });
    times.raw.push(await timed(() => fetch(rawUrl, { method: "POST", body }).then((r) => r.text())));
    times.store.push(await timed(() => store.put(`bench/${i}`, data, data.length, "audio/wav")));
    times.post.push(
      await timed(async () => {
        const r = await upload(t, token, { data, name: "bench.wav", type: "audio/wav" });
        if (r.status !== 202) throw new Error(`POST /api/upload: ${r.status} ${JSON.stringify(r.body)}`);
      }),
    );
    times.tus.push(
      await timed(async () => {
        const auth = { authorization: `Bearer ${token}`, "tus-resumable": "1.0.0" };
        const created = await fetch(`${t.url}/api/uploads`, {
          method: "POST",
          headers: {
            ...auth,
            "upload-length": String(data.length),
            "upload-metadata": `filename ${Buffer.from("bench.wav").toString("base64")},model ${Buffer.from("meeting").toString("base64")}`,
          },
        });
        const location = created.headers.get("location");
        const r = await fetch(`${t.url}${location}`, {
          method: "PATCH",
          headers: { ...auth, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
          body,
        });
        if (r.status !== 204) throw new Error(`tus PATCH: ${r.status} ${await r.text()}`);
      }),
    );
  }
  const r = stats(times.raw);
  const p = stats(times.post);
  const u = stats(times.tus);
  const line = (name: string, s: { min: number; median: number }) =>
    `${name.padEnd(34)} min ${s.min.toFixed(3)} s   median ${s.median.toFixed(3)} s   (${(s.median / r.median).toFixed(1)}× raw median)`;
  console.log(
    [
      `Upload bench: ${(data.length / 1e6).toFixed(1)} MB WAV (16 kHz mono, ${Math.round(data.length / 32_000)} s), ${RUNS} rounds, ${os.cpus().length} cores`,
      line("raw loopback POST", r),
      line("one PUT straight to the store", stats(times.store)),
      line("POST /api/upload (202)", p),
      line("tus creation + one PATCH (204)", u),
      `POST /api/upload / raw: min ${(p.min / r.min).toFixed(1)}×, median ${(p.median / r.median).toFixed(1)}× (the goal is at most 1.5×)`,
    ].join("\n"),
  );
} finally {
  await t.close();
  raw.close();
  await s3.close();
}
process.exit(0);
