/**
 * `npm run bench:upload [-- runs megabytes]`: how long the single POST /api/upload takes to answer for
 * a WAV of `megabytes` MB (default 19) against a raw loopback HTTP POST of the same bytes (the same
 * multipart body, encoded once) to a tiny node server that only reads them; also how long until the
 * recording is in the store (the hand-off after the answer), one PUT of the file straight to the
 * store, and a resumable upload (tus: creation + one PATCH) of it. `runs` rounds (default 7), each
 * kind once per round, interleaved, each hand-off ended before the next request, after one round not
 * counted (warm-up). Prints min and median of each and the ratios, and the median of the per-round
 * ratio of the POST to the raw POST (less swayed by the shared machine's load drifting over a run).
 * Uses the real stack: a gateway, PostgreSQL, Redis and the embedded object store in its own process,
 * as `npm start` runs it (scripts/objectstore.mjs; its own database, Redis prefix and bucket). Needs
 * PostgreSQL and Redis (DATABASE_URL, REDIS_URL; default 127.0.0.1).
 */

import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createObjectStore } from "../services/shared/src/server/storage.ts";
import { freePort, startService, waitForStatus } from "../tests/infra/service-process.ts";
import { startTestGateway } from "../tests/support/gateway.ts";
import { audioStored, createUser } from "../tests/support/pipeline.ts";
import { toneWav } from "../tests/support/wav.ts";

const RUNS = Number(process.argv[2] ?? 7);
const MEGABYTES = Number(process.argv[3] ?? 19);

/** A 16 kHz mono 16-bit WAV of about `bytes` bytes: a tone. */
const wav = (bytes: number) => toneWav(bytes);

/** The upload form (the model field, then the file) as fetch sends it. */
function multipartForm(data: Buffer): FormData {
  const form = new FormData();
  form.append("model", "meeting");
  form.append("file", new Blob([new Uint8Array(data)], { type: "audio/wav" }), "bench.wav");
  return form;
}

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
  const port = await freePort();
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

/** The raw loopback server, in its own process: it reads a body and answers "ok". */
async function startRawServer(): Promise<{ url: string; close: () => void }> {
  const code = `const s = require("node:http").createServer((q, r) => { q.on("data", () => {}); q.on("end", () => r.end("ok")); });
    s.listen(0, "127.0.0.1", () => console.log("port " + s.address().port));`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) =>
    child.stdout.on("data", (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve(m[1]);
    }),
  );
  return { url: `http://127.0.0.1:${port}/`, close: () => child.kill("SIGTERM") };
}

const s3 = await startObjectStore();
process.env.TEST_LOG_LEVEL ??= "error";
const raw = await startRawServer();
const rawUrl = raw.url;
// A gateway in this process makes the database, signs the tokens and reads the jobs; the uploads go to
// the same gateway in its own process (as `npm start` runs it), so the client's work is not the server's.
const t = await startTestGateway();
const gatewayPort = await freePort();
const gateway = startService("gateway", { ...t.env, PORT: String(gatewayPort), OPS_PORT: String(await freePort()) });
await waitForStatus(`http://127.0.0.1:${gatewayPort}/healthz`, 200, gateway, 60_000);
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
try {
  const data = wav(MEGABYTES * 1000 * 1000);
  const body = new Uint8Array(data);
  // The single POST's multipart body, encoded once: the raw POST and POST /api/upload send these same
  // bytes, so what differs is the server's work, not the client's encoding of the form.
  const form = new Response(multipartForm(data));
  const formType = form.headers.get("content-type") ?? "";
  const formBody = new Uint8Array(await form.arrayBuffer());
  const times = {
    raw: [] as number[],
    store: [] as number[],
    post: [] as number[],
    postStored: [] as number[],
    tus: [] as number[],
  };
  // The floor the store sets: one PUT of the same bytes straight to it (what every upload must wait for).
  const store = createObjectStore({
    S3_ENDPOINT: process.env.S3_ENDPOINT ?? "",
    S3_ACCESS_KEY: process.env.S3_ACCESS_KEY ?? "",
    S3_SECRET_KEY: process.env.S3_SECRET_KEY ?? "",
    S3_BUCKET: process.env.S3_BUCKET ?? "",
    S3_REGION: "us-east-1",
  });
  await store.ensureBucket();
  // Round 0 warms up (first connections, JIT) and is not counted.
  for (let i = -1; i < RUNS; i++) {
    if (i === 0) for (const xs of Object.values(times)) xs.length = 0;
    // A fresh premium user per round: the minutes never run out.
    const { token } = await createUser(t, { plan: "premium" });
    // Each request starts with the disk settled: what the previous ones wrote is flushed first
    // (otherwise the store's and the hand-off's 19 MB writes land on whichever request comes next).
    execFileSync("sync");
    times.raw.push(
      await timed(() =>
        fetch(rawUrl, { method: "POST", headers: { "content-type": formType }, body: formBody }).then((r) => r.text()),
      ),
    );
    execFileSync("sync");
    times.store.push(await timed(() => store.put(`bench/${i + 1}`, data, data.length, "audio/wav")));
    // The answer, then (not counted in it) the hand-off to the store, which ends before the next request.
    execFileSync("sync");
    const t0 = performance.now();
    const r = await fetch(`${gatewayUrl}/api/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": formType },
      body: formBody,
    });
    if (r.status !== 202) throw new Error(`POST /api/upload: ${r.status} ${await r.text()}`);
    times.post.push((performance.now() - t0) / 1000);
    await audioStored(t, ((await r.json()) as { jobId: string }).jobId);
    times.postStored.push((performance.now() - t0) / 1000);
    execFileSync("sync");
    const t1 = performance.now();
    const auth = { authorization: `Bearer ${token}`, "tus-resumable": "1.0.0" };
    const created = await fetch(`${gatewayUrl}/api/uploads`, {
      method: "POST",
      headers: {
        ...auth,
        "upload-length": String(data.length),
        "upload-metadata": `filename ${Buffer.from("bench.wav").toString("base64")},model ${Buffer.from("meeting").toString("base64")}`,
      },
    });
    const patched = await fetch(`${gatewayUrl}${created.headers.get("location")}`, {
      method: "PATCH",
      headers: { ...auth, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body,
    });
    if (patched.status !== 204) throw new Error(`tus PATCH: ${patched.status} ${await patched.text()}`);
    times.tus.push((performance.now() - t1) / 1000);
    await audioStored(t, patched.headers.get("upload-job-id") ?? "");
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
      line("  … until its recording is stored", stats(times.postStored)),
      line("tus creation + one PATCH (204)", u),
      `POST /api/upload / raw: min ${(p.min / r.min).toFixed(1)}×, median ${(p.median / r.median).toFixed(1)}× (the goal is at most 1.5×)`,
      `  paired in each round (the two requests seconds apart): median ${stats(times.post.map((x, i) => x / times.raw[i])).median.toFixed(2)}×`,
    ].join("\n"),
  );
} finally {
  gateway.child.kill("SIGTERM");
  await gateway.exited;
  await t.close();
  raw.close();
  await s3.close();
}
process.exit(0);
