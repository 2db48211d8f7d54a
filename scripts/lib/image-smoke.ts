// The run half of the image smoke (scripts/ci-images.sh builds the images, then runs this):
//   node --import tsx scripts/lib/image-smoke.ts
// Starts the embedded S3 store on a free port, migrates a fresh database with the gateway image
// (`node dist/migrate.js`), checks that each image's native bindings load, starts the four images with
// NODE_ENV=production on the host network against the test PostgreSQL and Redis (own database, own
// Redis prefix, own bucket), waits for their health checks, then pushes the two-voice interview of
// tests/fixtures/audio through: upload -> transcription (pocketsphinx, classic diarization, Silero VAD)
// -> correction -> corrected text with both speakers. The user is inserted verified in the database
// and its ID token minted with the gateway's own signer, as the tests do.
// PostgreSQL and Redis are provisioned as `npm test` does (scripts/lib/services.mjs: what answers at
// DATABASE_URL/REDIS_URL, else started here and stopped at the end), since CI's test run stops the
// servers it started.
// Environment: KIKITORI_TAG (default smoke), DATABASE_URL (server to use; default
// postgresql://postgres@127.0.0.1:5432/postgres), REDIS_URL, SMOKE_KEEP=1 (leave everything running).
// Exits 0 when the corrected text arrived, 1 otherwise (printing each container's last log lines).
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { TokenSigner } from "../../services/gateway/src/auth/tokens.ts";
import { createDb } from "../../services/shared/src/server/db.ts";
import { dropDatabase } from "../../services/shared/src/server/migrate.ts";
import { freePort } from "../../tests/infra/service-process.ts";
import { insertVerifiedUser } from "../../tests/support/db.ts";
import { startEmbeddedS3 } from "./embedded-s3.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TAG = process.env.KIKITORI_TAG ?? "smoke";
const KEEP = process.env.SMOKE_KEEP === "1";
const SERVICES = ["billing", "text-worker", "transcription-worker", "gateway"] as const;
type Service = (typeof SERVICES)[number];
const image = (s: Service) => `kikitori/${s}:${TAG}`;
const t0 = Date.now();
const log = (msg: string) => console.log(`[smoke +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/postgres";
process.env.REDIS_URL ??= "redis://127.0.0.1:6379";
const { ensureServices } = (await import("./services.mjs" as string)) as {
  ensureServices: (o: { log: (m: string) => void }) => Promise<{ stop: () => Promise<void> }>;
};
const servers = await ensureServices({ log: (m) => log(m) });

const id = randomBytes(4).toString("hex");
const server = new URL(process.env.DATABASE_URL);
const databaseUrl = Object.assign(new URL(server), { pathname: `/kikitori_smoke_${id}` }).toString();
const prefix = `kk-smoke-${id}`;
const bucket = `smoke-${id}`;
const s3Key = `smoke${id}`;
const s3Secret = randomBytes(16).toString("hex");
const jwtSecret = randomBytes(32).toString("hex");
const [s3Port, gatewayPort, ...opsPorts] = await Promise.all([0, 1, 2, 3, 4, 5].map(() => freePort()));
const OPS: Record<Service, number> = {
  gateway: opsPorts[0],
  "transcription-worker": opsPorts[1],
  "text-worker": opsPorts[2],
  billing: opsPorts[3],
};
const names = (s: Service) => `kikitori-smoke-${id}-${s}`;

const common: Record<string, string> = {
  NODE_ENV: "production",
  LOG_LEVEL: "info",
  DATABASE_URL: databaseUrl,
  REDIS_URL: process.env.REDIS_URL,
  REDIS_PREFIX: prefix,
  S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
  S3_ACCESS_KEY: s3Key,
  S3_SECRET_KEY: s3Secret,
  S3_BUCKET: bucket,
  PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
  JWT_SECRET: jwtSecret,
  INTERNAL_TOKEN: randomBytes(24).toString("hex"),
  BILLING_URL: `http://127.0.0.1:${OPS.billing}`,
};
const ops = (s: Service) => ({ OPS_HOST: "127.0.0.1", OPS_PORT: String(OPS[s]) });
const ENV: Record<Service, Record<string, string>> = {
  gateway: { ...ops("gateway"), HOST: "127.0.0.1", PORT: String(gatewayPort) },
  // pocketsphinx (Debian's, in the image) rather than a Whisper model the smoke would have to download.
  "transcription-worker": {
    ...ops("transcription-worker"),
    TRANSCRIPTION_ENGINE: "pocketsphinx",
    MODELS_DIR: "/models",
  },
  "text-worker": ops("text-worker"),
  // The local provider on purpose: no payment is made here.
  billing: { ...ops("billing"), PAYMENT_PROVIDER: "local", ALLOW_TEST_PAYMENTS: "true" },
};

function docker(args: string[], opts: { quiet?: boolean } = {}): string {
  return execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", opts.quiet ? "pipe" : "inherit"] });
}
const envArgs = (env: Record<string, string>) => Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);

const started: string[] = [];
let s3: Awaited<ReturnType<typeof startEmbeddedS3>> | undefined;
const s3Dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-smoke-s3-"));

async function cleanup(failed: boolean) {
  if (failed) {
    for (const c of started) {
      const r = spawnSync("docker", ["logs", "--tail", "25", c], { encoding: "utf8" });
      console.log(`--- ${c} (last lines)\n${r.stdout}${r.stderr}`);
    }
  }
  if (KEEP) {
    log(`left running (SMOKE_KEEP=1): ${started.join(" ")}; gateway on http://127.0.0.1:${gatewayPort}`);
    return;
  }
  if (started.length) spawnSync("docker", ["rm", "-f", ...started], { stdio: "ignore" });
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
  await dropDatabase(databaseUrl).catch(() => {});
  await servers.stop();
}

async function waitHealthy(s: Service, timeoutMs = 90_000) {
  const url = s === "gateway" ? `http://127.0.0.1:${gatewayPort}/healthz` : `http://127.0.0.1:${OPS[s]}/healthz`;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const state = docker(["inspect", "-f", "{{.State.Status}}", names(s)], { quiet: true }).trim();
    if (state !== "running") throw new Error(`${s} is ${state}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > until) throw new Error(`${s} not healthy after ${timeoutMs / 1000} s (${url})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main() {
  s3 = await startEmbeddedS3({
    port: s3Port,
    address: "127.0.0.1",
    directory: s3Dir,
    buckets: [bucket],
    accessKey: s3Key,
    secretKey: s3Secret,
  });
  log(`embedded S3 on 127.0.0.1:${s3Port}, database ${new URL(databaseUrl).pathname.slice(1)}, prefix ${prefix}`);

  // The migration step as the release runs it: the gateway image's compiled migrate, then its init wait.
  const run = (s: Service, cmd: string[], env: Record<string, string> = {}) =>
    docker(["run", "--rm", "--network", "host", ...envArgs({ ...common, ...env }), image(s), ...cmd]);
  run("gateway", ["node", "dist/migrate.js"]);
  run("billing", ["node", "dist/wait-for-migrations.js"], { WAIT_TIMEOUT_MS: "10000" });
  log("migrated (gateway image) and the init wait passed (billing image)");

  // The native bindings each image carries load on this architecture.
  run("gateway", ["node", "-e", 'await import("@node-rs/argon2")'], {});
  run("transcription-worker", ["node", "-e", 'await import("sherpa-onnx-node"); await import("@napi-rs/whisper")']);
  log("native bindings load (argon2; sherpa-onnx, whisper)");

  for (const s of SERVICES) {
    const name = names(s);
    docker(
      ["run", "-d", "--name", name, "--network", "host", "--init", ...envArgs({ ...common, ...ENV[s] }), image(s)],
      { quiet: true },
    );
    started.push(name);
    if (s !== "gateway") docker(["exec", name, "true"], { quiet: true }); // fail fast if it died at once
  }
  await Promise.all(SERVICES.map((s) => waitHealthy(s)));
  log("all four images running and healthy (NODE_ENV=production)");

  const db = createDb(databaseUrl, { max: 2 });
  const { uid, email } = await insertVerifiedUser(db);
  await db.$disconnect();
  const token = await new TokenSigner(jwtSecret, 600).sign({ sub: uid, email, email_verified: true });
  const auth = { authorization: `Bearer ${token}` };

  const form = new FormData();
  for (const [k, v] of Object.entries({
    model: "meeting",
    interviewer: "Anna",
    interviewee: "Ben",
    language: "en",
  }))
    form.append(k, v);
  const mp3 = readFileSync(path.join(ROOT, "tests/fixtures/audio/interview-en.mp3"));
  form.append("file", new Blob([new Uint8Array(mp3)], { type: "audio/mpeg" }), "interview.mp3");
  const up = await fetch(`http://127.0.0.1:${gatewayPort}/api/upload`, { method: "POST", headers: auth, body: form });
  const upBody = (await up.json()) as { jobId?: string };
  if (up.status !== 202 || !upBody.jobId) throw new Error(`upload: ${up.status} ${JSON.stringify(upBody)}`);
  log(`uploaded the two-voice interview (${(mp3.length / 1024).toFixed(0)} KiB): job ${upBody.jobId}`);

  const until = Date.now() + 180_000;
  let snap: { status?: string; rewrittenText?: string | null; error?: unknown; durationSeconds?: number } = {};
  while (Date.now() < until) {
    snap = await fetch(`http://127.0.0.1:${gatewayPort}/api/transcriptions/${upBody.jobId}`, { headers: auth }).then(
      (r) => r.json(),
    );
    if (snap.status === "completed" || snap.status === "failed") break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (snap.status !== "completed") throw new Error(`job ended ${snap.status}: ${JSON.stringify(snap.error)}`);
  const text = snap.rewrittenText ?? "";
  if (!/Anna:/.test(text) || !/Ben:/.test(text)) throw new Error(`corrected text lacks the speakers: ${text}`);
  log(
    `corrected text back (${snap.durationSeconds} s of audio, ${[...text].length} characters): ${text.slice(0, 100).replace(/\n/g, " ")}…`,
  );
}

let failed = false;
try {
  await main();
} catch (err) {
  failed = true;
  console.error(`[smoke] FAILED: ${(err as Error).message}`);
}
await cleanup(failed);
log(failed ? "image smoke failed" : "image smoke passed");
process.exit(failed ? 1 : 0);
