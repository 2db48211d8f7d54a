// `npm run test:faults`: the fault and abuse suite, with a table of figures at the end.
// It runs against a real stack on loopback (PostgreSQL and Redis as for the integration tests, the
// embedded object store, two gateways on one database and Redis prefix, a text worker process)
// and checks:
//   1. bad inputs over HTTP and the WebSocket: every one answered with a clean 4xx in the error shape
//      (or, on the socket, closed with the right code), none unanswered within 10 s, the gateway
//      healthy afterwards;
//   2. faults: the object store down during an upload (a clean 503, nothing stored, nothing charged),
//      then back (the next upload is accepted); a gateway process SIGKILLed with 10 sockets open (the
//      clients reconnect to the other gateway, read the job there and see its completion, published
//      by a stand-in for the worker); Redis restarted mid-transcription; PostgreSQL restarted
//      mid-transcription and again at "Correction started" (each a server of this suite's own, so
//      the shared ones are untouched): the job ends complete or cleanly failed, charged once, with no
//      orphaned object;
//   3. load: 200 concurrent uploads spread over the two gateways (no 5xx; p50/p99 accept time), and
//      50 concurrent summaries for one user with a quota of 3 (exactly 3 produced, 47 refused with 402).
//   4. boundaries: well-formed requests that try to cross a boundary (scripts/faults/*-boundaries.ts):
//      playlists behind audio headers, quota held by uploads in flight, the stream charged against the
//      stream decoded, live text then delete; sockets after logout, export names, account deletion,
//      parallel wrong passwords, account enumeration, files at rest, version storage, Host-less requests.
// Not covered here: the object store down during a chunk, and a worker SIGKILLed mid-chunk
// (tests/pipeline/transcription.int.test.ts covers that one).
// Exit code 1 when any check fails.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ERROR_CODES, errorBodySchema } from "@kikitori/shared";
import { createObjectStore, createRedis, publishProgress } from "@kikitori/shared/server";
import WebSocket from "ws";
import { hashPassword } from "../services/gateway/src/auth/passwords.ts";
import { loadGatewayConfig } from "../services/gateway/src/config.ts";
import { freePort, type ServiceProcess, stopService } from "../tests/infra/service-process.ts";
import { startCluster } from "../tests/scale/cluster.ts";
import { insertVerifiedUser } from "../tests/support/db.ts";
import { startReplica, startTestGateway, type TestGateway } from "../tests/support/gateway.ts";
import { audioStored, listen, startWorker, upload } from "../tests/support/pipeline.ts";
import { runAccountBoundaries } from "./faults/account-boundaries.ts";
import { runMediaBoundaries } from "./faults/media-boundaries.ts";
import { type EmbeddedS3, startEmbeddedS3 } from "./lib/embedded-s3.ts";

const HANG_MS = 10_000;
const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  if (!ok) failures.push(what);
  return ok;
};

// ---------------------------------------------------------------- the stack
const s3dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-faults-s3-"));
const uploadTmp = mkdtempSync(path.join(os.tmpdir(), "kikitori-faults-up-"));
const s3creds = { accessKey: `faults-${randomBytes(6).toString("hex")}`, secretKey: randomBytes(32).toString("hex") };
let s3: EmbeddedS3 = await startEmbeddedS3({ port: 0, address: "127.0.0.1", directory: s3dir, ...s3creds });
const s3port = s3.port;
process.env.S3_ENDPOINT = `http://127.0.0.1:${s3port}`;
process.env.S3_ACCESS_KEY = s3creds.accessKey;
process.env.S3_SECRET_KEY = s3creds.secretKey;
process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/postgres";
process.env.REDIS_URL ??= "redis://127.0.0.1:6379";

const env = {
  UPLOAD_TMP_DIR: uploadTmp,
  UPLOAD_IDLE_TIMEOUT_MS: "1500",
  UPLOAD_TIMEOUT_MS: "5000",
  TEXT_JOB_TIMEOUT_MS: "60000",
  PLAN_FREE_SUMMARIES: "3",
};
const t = await startTestGateway({ env });
const second = await startReplica(t);
const worker = await startWorker(t, "text-worker");

async function user(opts: { password?: string } = {}) {
  const { uid, email } = await insertVerifiedUser(t.db);
  if (opts.password) {
    await t.db.user.update({ where: { id: uid }, data: { passwordHash: await hashPassword(opts.password) } });
  }
  const token = await t.gw.signer.sign({ sub: uid, email, email_verified: true });
  return { uid, email, token };
}

// ---------------------------------------------------------------- 1. bad inputs
interface Outcome {
  kind: "http" | "ws";
  name: string;
  status: number | string;
  clean: boolean;
  hang: boolean;
  detail?: string;
}
const outcomes: Outcome[] = [];

function isCleanHttp(status: number, text: string): { clean: boolean; detail?: string } {
  if (status < 400 || status >= 500) return { clean: false, detail: `status ${status}` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { clean: false, detail: "body is not JSON" };
  }
  const parsed = errorBodySchema.safeParse(body);
  if (!parsed.success) return { clean: false, detail: `not the error shape: ${text.slice(0, 120)}` };
  if (ERROR_CODES[parsed.data.error.code] !== status && parsed.data.error.code !== "VALIDATION_FAILED") {
    return { clean: false, detail: `${parsed.data.error.code} with status ${status}` };
  }
  return { clean: true };
}

async function http(
  name: string,
  method: string,
  p: string,
  opts: { body?: string | Buffer; headers?: Record<string, string>; base?: string } = {},
) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), HANG_MS);
  try {
    const res = await fetch((opts.base ?? t.url) + p, {
      method,
      headers: opts.headers,
      body: typeof opts.body === "string" || opts.body === undefined ? opts.body : new Uint8Array(opts.body),
      signal: ac.signal,
    });
    const text = await res.text();
    const c = isCleanHttp(res.status, text);
    outcomes.push({ kind: "http", name, status: res.status, hang: false, ...c });
  } catch (err) {
    const hang = ac.signal.aborted;
    outcomes.push({
      kind: "http",
      name,
      status: hang ? "no answer" : "error",
      clean: false,
      hang,
      detail: String(err),
    });
  } finally {
    clearTimeout(timer);
  }
}

/** A request written on a raw socket (bodies cut short, stalls, garbage on the wire). */
function raw(name: string, bytes: Buffer, opts: { end?: boolean } = {}): Promise<void> {
  const u = new URL(t.url);
  return new Promise((resolve) => {
    let text = "";
    let settled = false;
    const sock = net.connect(Number(u.port), u.hostname, () => {
      sock.write(bytes);
      if (opts.end) sock.end();
    });
    const finish = (hang: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const body = text.slice(text.indexOf("\r\n\r\n") + 4);
      const c = status ? isCleanHttp(status, body) : { clean: false, detail: "no status line" };
      outcomes.push({ kind: "http", name, status: status || "no answer", hang, ...c });
      resolve();
    };
    const timer = setTimeout(() => finish(true), HANG_MS);
    sock.on("data", (d) => {
      text += d.toString("utf8");
      const head = text.indexOf("\r\n\r\n");
      const len = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
      if (head >= 0 && len >= 0 && Buffer.byteLength(text.slice(head + 4)) >= len) finish(false);
    });
    sock.on("close", () => finish(!text));
    sock.on("error", () => finish(!text));
  });
}

/** A socket that sends `frames` and must end up closed with one of `codes` (or, for `stay`, still open). */
function ws(name: string, frames: Array<string | Buffer>, codes: number[]): Promise<void> {
  return new Promise((resolve) => {
    const s = new WebSocket(`${t.url.replace("http", "ws")}/ws`);
    let done = false;
    const finish = (status: number | string, clean: boolean, hang = false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.terminate();
      outcomes.push({ kind: "ws", name, status, clean, hang });
      resolve();
    };
    const timer = setTimeout(() => finish("no close", false, true), HANG_MS);
    s.on("open", () => {
      for (const f of frames) s.send(f);
    });
    s.on("close", (code) => finish(code, codes.includes(code)));
    s.on("error", () => finish("error", false));
  });
}

const JSON_H = { "content-type": "application/json" };
const u1 = await user({ password: "correct horse battery" });
const expired = await t.gw.signer.sign({ sub: u1.uid, email: u1.email, email_verified: true }, Date.now() - 7200_000);
const foreign =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4IiwiaXNzIjoia2lraXRvcmkiLCJhdWQiOiJraWtpdG9yaS1hcGkifQ.c2lnbmF0dXJl";
const algNone = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(`{"sub":"${u1.uid}"}`).toString("base64url")}.`;

// JSON bodies every public JSON endpoint gets.
const hostileBodies: Array<[string, string]> = [
  ["empty", ""],
  ["truncated", '{"email": "a@b.c", "password": '],
  ["trailing garbage", '{"email":"a@b.c"} xyz'],
  ["array", "[1,2,3]"],
  ["null", "null"],
  ["number", "42"],
  ["string", '"hello"'],
  ["wrong types", '{"email":42,"password":["x"],"token":{},"refreshToken":true,"language":7}'],
  ["NUL in strings", '{"email":"a\\u0000@b.c","password":"p\\u0000w","token":"t\\u0000","refreshToken":"r\\u0000"}'],
  ["lone surrogate", '{"email":"a\\ud800@b.c","password":"\\udc00","token":"\\ud800","refreshToken":"\\udfff"}'],
  ["__proto__", '{"__proto__":{"admin":true},"email":"a@b.c"}'],
  ["constructor", '{"constructor":{"prototype":{"x":1}}}'],
  ["huge string", JSON.stringify({ email: `${"a".repeat(300_000)}@b.c`, password: "x".repeat(300_000) })],
  ["deep nesting", `${"[".repeat(5000)}${"]".repeat(5000)}`],
  ["markup", '{"email":"<script>alert(1)</script>@x.y","password":"<img src=x onerror=alert(1)>"}'],
  ["SQL", `{"email":"x' OR '1'='1@example.com","password":"' OR 1=1 --","token":"'; DROP TABLE users;--"}`],
  ["unknown language", '{"email":"a@b.c","password":"long enough pw","language":"xx-evil"}'],
  ["bad e-mail", '{"email":"not an e-mail","password":"long enough pw"}'],
  ["short token", '{"token":"abc","refreshToken":"abc","password":"long enough pw"}'],
  [
    "long token",
    JSON.stringify({ token: "t".repeat(5000), refreshToken: "r".repeat(5000), password: "pw long enough" }),
  ],
  ["unicode e-mail", '{"email":"ü@ß.日本","password":"long enough pw"}'],
  ["NaN", '{"email":NaN}'],
  ["1e400", '{"email":"a@b.c","password":1e400,"language":1e400}'],
  ["byte order mark", '\ufeff{"email":"a@b.c"}'],
  ["control characters", '{"email":"a\u0001\u0008@b.c","password":"\u001f\u007f"}'],
  ["1000 keys", JSON.stringify(Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])))],
  ["long key", JSON.stringify({ ["k".repeat(100_000)]: 1 })],
  ["objects as values", '{"email":{"$ne":null},"password":{"$gt":""},"token":{"$regex":".*"}}'],
  ["emoji only", '{"email":"😀@😀.😀","password":"😀😀😀😀😀😀😀😀"}'],
  ["single quotes", "{'email':'a@b.c'}"],
  ["comment", '{"email":"a@b.c" /* x */}'],
];
const jsonEndpoints = [
  "/api/auth/register",
  "/api/auth/verify-email",
  "/api/auth/resend-verification",
  "/api/auth/login",
  "/api/auth/refresh",
  "/api/auth/logout",
  "/api/auth/password-reset",
  "/api/auth/password-reset/confirm",
  "/api/auth/password-reset/check",
];
for (const ep of jsonEndpoints) {
  for (const [n, body] of hostileBodies) {
    if (ep === "/api/auth/logout" && n === "short token") continue; // logout of an unknown token is a 204 by design
    await http(`POST ${ep}: ${n}`, "POST", ep, { body, headers: JSON_H });
  }
  await http(`POST ${ep}: text/xml`, "POST", ep, { body: "<a/>", headers: { "content-type": "text/xml" } });
  await http(`POST ${ep}: form-urlencoded`, "POST", ep, {
    body: "email=a",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  await http(`POST ${ep}: over 1 MiB`, "POST", ep, {
    body: JSON.stringify({ email: "a@b.c", password: "x".repeat(1_100_000) }),
    headers: JSON_H,
  });
}

// Authenticated endpoints with bad tokens (and bodies that would fail validation: the token comes first).
const authed: Array<[string, string, string | undefined]> = [
  ["GET", "/api/user-usage", undefined],
  ["GET", "/api/transcriptions", undefined],
  ["GET", `/api/transcriptions/${randomUUID()}`, undefined],
  ["GET", `/api/audio/${randomUUID()}`, undefined],
  ["POST", "/api/upload", "--x\r\n"],
  ["POST", "/api/summary/summarize", '{"nonsense":true}'],
  ["POST", "/api/generate-titles-and-headings", '{"nonsense":true}'],
  ["POST", "/api/auth/users", '{"uid":1}'],
  ["DELETE", `/api/auth/users/${randomUUID()}`, undefined],
  ["DELETE", "/api/auth/account", undefined],
  ["GET", "/api/plans/current", undefined],
  ["POST", "/api/plan", '{"plan":"premium"}'],
  ["PATCH", `/api/transcriptions/${randomUUID()}`, '{"version":1,"title":"x"}'],
  ["GET", `/api/transcriptions/${randomUUID()}/versions`, undefined],
  ["POST", `/api/transcriptions/${randomUUID()}/versions/1/restore`, '{"version":1}'],
  ["GET", `/api/transcriptions/${randomUUID()}/fidelity`, undefined],
  ["POST", `/api/transcriptions/${randomUUID()}/segments/0/split`, '{"version":1,"at":1}'],
  ["POST", `/api/transcriptions/${randomUUID()}/interview-sync`, '{"version":1,"conflict":"x","keep":"transcript"}'],
  ["GET", `/api/transcriptions/${randomUUID()}/quotes`, undefined],
  ["POST", `/api/transcriptions/${randomUUID()}/quotes`, '{"start":0,"end":1}'],
  ["GET", `/api/transcriptions/${randomUUID()}/shares`, undefined],
  ["POST", `/api/transcriptions/${randomUUID()}/shares`, '{"expiresInDays":7,"includeAudio":false}'],
  ["GET", "/api/account/glossary", undefined],
  ["PUT", "/api/account/glossary", '{"terms":[]}'],
  ["GET", `/api/uploads/${randomUUID()}`, undefined],
];
const badTokens: Array<[string, string | null]> = [
  ["no token", null],
  ["garbage", "garbage"],
  ["Basic scheme", "Basic dXNlcjpwYXNz"],
  ["another key", foreign],
  ["alg none", algNone],
  ["expired", expired],
  ["empty bearer", ""],
];
for (const [method, p, body] of authed) {
  for (const [n, tok] of badTokens) {
    const headers: Record<string, string> = {
      "content-type": p === "/api/upload" ? "multipart/form-data" : "application/json",
    };
    if (tok !== null) headers.authorization = n === "Basic scheme" ? tok : `Bearer ${tok}`;
    await http(`${method} ${p}: ${n}`, method, p, {
      body,
      headers: method === "GET" || method === "DELETE" ? { ...headers, "content-type": "" } : headers,
    });
  }
}

// Text tools with a valid token: each rule, types, NUL bytes, lone surrogates.
const auth1 = { ...JSON_H, authorization: `Bearer ${u1.token}` };
const text = "Kikitori turns interviews into text. ".repeat(60);
const summaryBodies: Array<[string, unknown]> = [
  ["blank text", { text: "   ", desiredLength: 500, requiredPhrases: ["a", "b"] }],
  ["text too long", { text: "x".repeat(200_001), desiredLength: 500, requiredPhrases: ["a", "b"] }],
  ["length too small", { text, desiredLength: 1, requiredPhrases: ["Kikitori", "text"] }],
  ["length too large", { text, desiredLength: 10_000_000, requiredPhrases: ["Kikitori", "text"] }],
  ["length over the text", { text: "short text here. ".repeat(10), desiredLength: 5000, requiredPhrases: ["a", "b"] }],
  ["one phrase", { text, desiredLength: 500, requiredPhrases: ["Kikitori"] }],
  ["too many phrases", { text, desiredLength: 500, requiredPhrases: Array.from({ length: 50 }, (_, i) => `p${i}`) }],
  ["phrase too long", { text, desiredLength: 500, requiredPhrases: ["Kikitori", "y".repeat(5000)] }],
  ["phrases longer than the summary", { text, desiredLength: 100, requiredPhrases: ["x".repeat(60), "y".repeat(60)] }],
  ["wrong types", { text: 5, desiredLength: "500", requiredPhrases: "a,b" }],
  ["NUL", { text: `${text}\u0000`, desiredLength: 500, requiredPhrases: ["Kikitori", "text"] }],
  ["lone surrogate", { text: `${text}\ud83d`, desiredLength: 500, requiredPhrases: ["Kikitori", "text"] }],
  ["NUL in a phrase", { text, desiredLength: 500, requiredPhrases: ["Kiki\u0000tori", "text"] }],
  ["other uid", { uid: randomUUID(), text, desiredLength: 500, requiredPhrases: ["Kikitori", "text"] }],
  ["fractional length", { text, desiredLength: 500.5, requiredPhrases: ["Kikitori", "text"] }],
  ["negative length", { text, desiredLength: -5, requiredPhrases: ["Kikitori", "text"] }],
];
for (const [n, b] of summaryBodies) {
  await http(`POST summarize: ${n}`, "POST", "/api/summary/summarize", { body: JSON.stringify(b), headers: auth1 });
}
const title = (over: Record<string, unknown>) => ({
  originalText: text,
  numTitles: 3,
  numHeadingsPerArticle: 3,
  ...over,
});
const titleBodies: Array<[string, unknown]> = [
  ["blank", title({ originalText: "  " })],
  ["0 titles", title({ numTitles: 0 })],
  ["1000 titles", title({ numTitles: 1000 })],
  ["1000 headings", title({ numHeadingsPerArticle: 1000 })],
  ["wrong types", title({ originalText: [], numTitles: "3" })],
  ["NUL", title({ originalText: `${text}\u0000` })],
  ["lone surrogate", title({ originalText: `\udc00${text}` })],
  ["prompt too long", title({ customPrompt: "p".repeat(20_000) })],
  ["too long", title({ originalText: "x".repeat(200_001) })],
  ["NUL in the prompt", title({ customPrompt: "be brief\u0000" })],
];
for (const [n, b] of titleBodies) {
  await http(`POST titles: ${n}`, "POST", "/api/generate-titles-and-headings", {
    body: JSON.stringify(b),
    headers: auth1,
  });
}

// Uploads.
const B = "----faultsBoundary";
const part = (name: string, value: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (filename: string, data: Buffer) =>
  Buffer.concat([
    Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`),
    data,
    Buffer.from("\r\n"),
  ]);
const end = Buffer.from(`--${B}--\r\n`);
const wav = (seconds: number) => {
  const n = seconds * 8000 * 2;
  const h = Buffer.alloc(44);
  h.write("RIFF", 0);
  h.writeUInt32LE(36 + n, 4);
  h.write("WAVEfmt ", 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(16000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36);
  h.writeUInt32LE(n, 40);
  return Buffer.concat([h, Buffer.alloc(n)]);
};
const mp = (...pieces: Array<string | Buffer>) =>
  Buffer.concat(pieces.map((x) => (typeof x === "string" ? Buffer.from(x) : x)));
const upH = (token = u1.token) => ({
  authorization: `Bearer ${token}`,
  "content-type": `multipart/form-data; boundary=${B}`,
});
const uploads: Array<[string, Buffer, Record<string, string>?]> = [
  ["no file", mp(part("model", "meeting"), end)],
  ["empty file", mp(part("model", "meeting"), filePart("a.wav", Buffer.alloc(0)), end)],
  ["text as .mp3", mp(part("model", "meeting"), filePart("a.mp3", Buffer.from("hello ".repeat(500))), end)],
  ["truncated wav header", mp(part("model", "meeting"), filePart("a.wav", wav(1).subarray(0, 30)), end)],
  ["wav header only", mp(part("model", "meeting"), filePart("a.wav", wav(1).subarray(0, 44)), end)],
  ["unknown model", mp(part("model", "podcast"), filePart("a.wav", wav(1)), end)],
  ["no model", mp(filePart("a.wav", wav(1)), end)],
  ["unknown tone", mp(part("model", "meeting"), part("tone", "angry"), filePart("a.wav", wav(1)), end)],
  [
    "example too long",
    mp(part("model", "meeting"), part("interviewExample", "x".repeat(301)), filePart("a.wav", wav(1)), end),
  ],
  [
    "field over 16 KiB",
    mp(part("model", "meeting"), part("interviewer", "x".repeat(17_000)), filePart("a.wav", wav(1)), end),
  ],
  [
    "NUL in a name field",
    mp(part("model", "meeting"), part("interviewer", "A\u0000B"), filePart("a.wav", wav(1)), end),
  ],
  ["NUL in the file name", mp(part("model", "meeting"), filePart("a\u0000.wav", wav(1)), end)],
  ["other uid", mp(part("model", "meeting"), part("uid", randomUUID()), filePart("a.wav", wav(1)), end)],
  ["unknown audio language", mp(part("model", "meeting"), part("language", "xx-evil"), filePart("a.wav", wav(1)), end)],
  ["two files", mp(part("model", "meeting"), filePart("a.wav", wav(1)), filePart("b.wav", wav(1)), end)],
  ["too many fields", mp(...Array.from({ length: 20 }, (_, i) => part(`f${i}`, "x")), filePart("a.wav", wav(1)), end)],
  ["no closing boundary", mp(part("model", "meeting"), filePart("a.wav", wav(1)))],
  ["garbage between parts", mp(part("model", "meeting"), "garbage\r\n", filePart("a.wav", wav(1)), end)],
  ["over 20 MiB", mp(part("model", "meeting"), filePart("a.wav", Buffer.alloc(21 * 1024 * 1024)), end)],
];
for (const [n, body] of uploads) await http(`upload: ${n}`, "POST", "/api/upload", { body, headers: upH() });
await http("upload: no boundary", "POST", "/api/upload", {
  body: "--x\r\n",
  headers: { authorization: `Bearer ${u1.token}`, "content-type": "multipart/form-data" },
});
await http("upload: JSON instead of multipart", "POST", "/api/upload", { body: "{}", headers: auth1 });
const quotaUser = await user();
await t.db.user.update({ where: { id: quotaUser.uid }, data: { secondsUsed: 30 * 60 - 1 } });
await http("upload: over the minutes left", "POST", "/api/upload", {
  body: mp(part("model", "meeting"), filePart("a.wav", wav(5)), end),
  headers: upH(quotaUser.token),
});
const head = mp(
  `POST /api/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${u1.token}\r\nContent-Type: multipart/form-data; boundary=${B}\r\nContent-Length: 100000\r\n\r\n`,
  part("model", "meeting"),
  `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`,
  wav(1).subarray(0, 3),
);
await raw("upload: body cut short (client half-closes)", head, { end: true });
await raw("upload: body stalls (socket left open)", head);

// Audio: bad ids, someone else's job, bad ranges.
const jobId = randomUUID();
await t.db.transcriptionJob.create({
  data: {
    id: jobId,
    userId: u1.uid,
    correlationId: "faults",
    audioKey: `users/${u1.uid}/audio/${jobId}.wav`,
    audioMime: "audio/wav",
    audioFormat: "wav",
    audioBytes: 1000,
    durationSeconds: 1,
    originalName: "a.wav",
    model: "meeting",
    language: "en",
    audioExpiresAt: new Date(Date.now() + 86_400_000),
  },
});
const other = await user();
for (const [n, p, tok, range] of [
  ["not a UUID", "/api/audio/not-a-uuid", u1.token, undefined],
  ["path traversal", "/api/audio/..%2F..%2Fetc%2Fpasswd", u1.token, undefined],
  ["someone else's", `/api/audio/${jobId}`, other.token, undefined],
  ["someone else's snapshot", `/api/transcriptions/${jobId}`, other.token, undefined],
  ["range past the end", `/api/audio/${jobId}`, u1.token, "bytes=5000-6000"],
  ["range start after end", `/api/audio/${jobId}`, u1.token, "bytes=500-100"],
  ["zero suffix range", `/api/audio/${jobId}`, u1.token, "bytes=-0"],
  ["empty range", `/api/audio/${jobId}`, u1.token, "bytes=-"],
  ["over-long id", `/api/transcriptions/${"a".repeat(100)}`, u1.token, undefined],
  ["limit 0", "/api/transcriptions?limit=0", u1.token, undefined],
  ["limit 1e9", "/api/transcriptions?limit=1000000000", u1.token, undefined],
  ["limit text", "/api/transcriptions?limit=abc", u1.token, undefined],
] as const) {
  await http(`GET ${n}`, "GET", p, { headers: { authorization: `Bearer ${tok}`, ...(range ? { range } : {}) } });
}

// The workspace: edits, versions, restore and the fidelity view with bad input. The job is
// still queued, so its texts cannot be edited yet; someone else's job is a 404.
const jobUrl = `/api/transcriptions/${jobId}`;
for (const [n, body] of hostileBodies)
  await http(`PATCH transcription: ${n}`, "PATCH", jobUrl, { body, headers: auth1 });
for (const [n, body] of [
  ["stale version", '{"version":99,"title":"x"}'],
  ["version as text", '{"version":"1","title":"x"}'],
  ["nothing to change", '{"version":1}'],
  ["segments of a queued job", '{"version":1,"segments":[{"index":0,"text":"x"}]}'],
  ["negative segment index", '{"version":1,"segments":[{"index":-1,"text":"x"}]}'],
  ["title over 255", JSON.stringify({ version: 1, title: "x".repeat(256) })],
  ["interview text of a queued job", '{"version":1,"rewrittenText":"x"}'],
  ["speakers of a queued job", '{"version":1,"speakers":{"names":[{"id":0,"name":"A"}]}}'],
  ["speakers: name empty", '{"version":1,"speakers":{"names":[{"id":0,"name":""}]}}'],
] as const) {
  await http(`PATCH transcription: ${n}`, "PATCH", jobUrl, { body, headers: auth1 });
}
await http("PATCH someone else's transcription", "PATCH", jobUrl, {
  body: '{"version":1,"title":"mine"}',
  headers: { ...JSON_H, authorization: `Bearer ${other.token}` },
});
for (const [n, body] of [
  ["no body", undefined],
  ["stale version", '{"version":99}'],
  ["version 0", '{"version":0}'],
] as const) {
  await http(`POST restore: ${n}`, "POST", `${jobUrl}/versions/1/restore`, { body, headers: auth1 });
}
for (const [n, p] of [
  ["version not a number", `${jobUrl}/versions/abc`],
  ["version 0", `${jobUrl}/versions/0`],
  ["version past 1e9", `${jobUrl}/versions/99999999999`],
  ["version not kept", `${jobUrl}/versions/7`],
  ["restore of a version not kept", `${jobUrl}/versions/7/restore`],
  ["fidelity of a queued job", `${jobUrl}/fidelity`],
  ["library: unknown sort", "/api/transcriptions?sort=size"],
  ["library: q over 200", `/api/transcriptions?q=${"a".repeat(201)}`],
  ["library: q with NUL", "/api/transcriptions?q=a%00b"],
  ["library: page -1", "/api/transcriptions?page=-1"],
] as const) {
  await http(`GET ${n}`, p.endsWith("/restore") ? "POST" : "GET", p, {
    headers: p.endsWith("/restore") ? { ...auth1 } : { authorization: `Bearer ${u1.token}` },
    body: p.endsWith("/restore") ? '{"version":1}' : undefined,
  });
}

// The newer workspace endpoints: lines split, the interview sync, quotes, share links, the glossary
// and resumable uploads, with bad input (the job is still queued; someone else's is a 404).
for (const [n, method, p, body] of [
  ["split: index -1", "POST", `${jobUrl}/segments/-1/split`, '{"version":1,"at":1}'],
  ["split: index not a number", "POST", `${jobUrl}/segments/x/split`, '{"version":1,"at":1}'],
  ["split: at 0", "POST", `${jobUrl}/segments/0/split`, '{"version":1,"at":0}'],
  ["split: at as text", "POST", `${jobUrl}/segments/0/split`, '{"version":1,"at":"3"}'],
  ["split: a queued job", "POST", `${jobUrl}/segments/0/split`, '{"version":1,"at":3}'],
  ["split: speaker 99", "POST", `${jobUrl}/segments/0/split`, '{"version":1,"at":3,"speaker":99}'],
  ["interview sync: keep both", "POST", `${jobUrl}/interview-sync`, '{"version":1,"conflict":"a","keep":"both"}'],
  ["interview sync: no conflict id", "POST", `${jobUrl}/interview-sync`, '{"version":1,"keep":"interview"}'],
  [
    "interview sync: none to resolve",
    "POST",
    `${jobUrl}/interview-sync`,
    '{"version":1,"conflict":"a","keep":"interview"}',
  ],
  ["quote: end before start", "POST", `${jobUrl}/quotes`, '{"start":5,"end":2}'],
  ["quote: negative start", "POST", `${jobUrl}/quotes`, '{"start":-1,"end":2}'],
  ["quote: times as text", "POST", `${jobUrl}/quotes`, '{"start":"0","end":"2"}'],
  ["quote: note over 2,000", "POST", `${jobUrl}/quotes`, JSON.stringify({ start: 0, end: 1, note: "n".repeat(2001) })],
  ["quote: 11 tags", "POST", `${jobUrl}/quotes`, JSON.stringify({ start: 0, end: 1, tags: Array(11).fill("t") })],
  ["quote: a queued job", "POST", `${jobUrl}/quotes`, '{"start":0,"end":1}'],
  ["quote: id not a UUID", "PATCH", `${jobUrl}/quotes/xyz`, '{"note":"x"}'],
  ["quote: unknown id", "DELETE", `${jobUrl}/quotes/${randomUUID()}`, undefined],
  ["share: 0 days", "POST", `${jobUrl}/shares`, '{"expiresInDays":0,"includeAudio":false}'],
  ["share: 91 days", "POST", `${jobUrl}/shares`, '{"expiresInDays":91,"includeAudio":false}'],
  ["share: audio as text", "POST", `${jobUrl}/shares`, '{"expiresInDays":7,"includeAudio":"yes"}'],
  ["share: a queued job", "POST", `${jobUrl}/shares`, '{"expiresInDays":7,"includeAudio":false}'],
  ["share: unknown id", "DELETE", `${jobUrl}/shares/${randomUUID()}`, undefined],
  [
    "glossary: 501 terms",
    "PUT",
    "/api/account/glossary",
    JSON.stringify({ terms: Array.from({ length: 501 }, (_, i) => `t${i}`) }),
  ],
  ["glossary: a term over 100", "PUT", "/api/account/glossary", JSON.stringify({ terms: ["x".repeat(101)] })],
  ["glossary: terms as text", "PUT", "/api/account/glossary", '{"terms":"Honey Cake"}'],
  ["glossary: NUL", "PUT", "/api/account/glossary", '{"terms":["a\\u0000b"]}'],
  ["upload status: unknown id", "GET", `/api/uploads/${randomUUID()}`, undefined],
] as const) {
  await http(n, method, p, {
    body,
    headers: body === undefined ? { authorization: `Bearer ${u1.token}` } : auth1,
  });
}
await http("quotes of someone else's job", "GET", `${jobUrl}/quotes`, {
  headers: { authorization: `Bearer ${other.token}` },
});
await http("split someone else's line", "POST", `${jobUrl}/segments/0/split`, {
  body: '{"version":1,"at":3}',
  headers: { ...JSON_H, authorization: `Bearer ${other.token}` },
});
for (const [n, token] of [
  ["shared: garbage token", "garbage"],
  ["shared: unknown token", randomUUID().replaceAll("-", "")],
  ["shared: 5,000 characters", "a".repeat(5000)],
  ["shared: percent-encoded NUL", "a%00b"],
] as const) {
  await http(n, "GET", `/api/shared/${token}`);
}
for (const [n, headers] of [
  ["tus: no Upload-Length", { "tus-resumable": "1.0.0" }],
  ["tus: Upload-Length -1", { "tus-resumable": "1.0.0", "upload-length": "-1" }],
  ["tus: Upload-Length past the plan", { "tus-resumable": "1.0.0", "upload-length": String(50 * 1024 ** 3) }],
  ["tus: defer length", { "tus-resumable": "1.0.0", "upload-defer-length": "1" }],
  [
    "tus: metadata not base64",
    { "tus-resumable": "1.0.0", "upload-length": "1000", "upload-metadata": "filename ***" },
  ],
] as const) {
  await http(n, "POST", "/api/uploads", { headers: { ...headers, authorization: `Bearer ${u1.token}` } });
}
await http("tus: PATCH an unknown upload", "PATCH", `/api/uploads/${randomUUID()}`, {
  body: Buffer.alloc(10),
  headers: {
    authorization: `Bearer ${u1.token}`,
    "tus-resumable": "1.0.0",
    "upload-offset": "0",
    "content-type": "application/offset+octet-stream",
  },
});

// Headers and the wire.
await raw(
  "headers over the limit",
  Buffer.from(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
);
await raw("garbage request line", Buffer.from("HELLO WORLD\r\n\r\n"));
await raw("bad content-length", Buffer.from("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"));
await raw(
  "JSON body cut short",
  Buffer.from(
    'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"email":',
  ),
  { end: true },
);
for (const p of ["/api/nope", "/metrics", "/api/auth/login?x=%00", "/ws", "/api/transcriptions/%00"]) {
  await http(`GET unknown ${p}`, "GET", p);
}
for (const m of ["PUT", "PATCH", "DELETE"]) await http(`${m} /api/auth/login`, m, "/api/auth/login");

// WebSocket frames.
const wsToken = u1.token;
const wsCases: Array<[string, Array<string | Buffer>, number[]]> = [
  ["not JSON", ["hello"], [4401]],
  ["JSON array", ["[1,2]"], [4401]],
  ["unknown type", ['{"type":"subscribe"}'], [4401]],
  ["auth without token", ['{"type":"auth"}'], [4401]],
  ["garbage token", ['{"type":"auth","token":"x"}'], [4401]],
  ["expired token", [JSON.stringify({ type: "auth", token: expired })], [4401]],
  ["foreign key", [JSON.stringify({ type: "auth", token: foreign })], [4401]],
  ["alg none", [JSON.stringify({ type: "auth", token: algNone })], [4401]],
  ["binary frame", [Buffer.from([0, 1, 2, 3])], [4401]],
  ["frame over 64 KiB", ["x".repeat(70_000)], [1009]],
  ["NUL in frame", ['{"type":"auth","token":"\\u0000"}'], [4401]],
  ["nothing sent (auth timeout)", [], [4401]],
  ["huge token", [JSON.stringify({ type: "auth", token: "t".repeat(60_000) })], [4401]],
  ["ping before auth, then garbage", ['{"type":"ping"}', "garbage"], [4401]],
];
for (let round = 0; round < 6; round++) {
  await Promise.all(wsCases.map(([n, frames, codes]) => ws(`ws ${n} #${round + 1}`, frames, codes)));
}
// A second auth frame must not bind another user; the socket stays on the first.
{
  const other2 = await user();
  const s = new WebSocket(`${t.url.replace("http", "ws")}/ws`);
  await new Promise<void>((r) => s.once("open", () => r()));
  s.send(JSON.stringify({ type: "auth", token: wsToken }));
  s.send(JSON.stringify({ type: "auth", token: other2.token }));
  await new Promise((r) => setTimeout(r, 300));
  const ok = t.gw.hub.count(other2.uid) === 0 && t.gw.hub.count(u1.uid) >= 1;
  outcomes.push({ kind: "ws", name: "ws second auth frame", status: ok ? "ignored" : "bound", clean: ok, hang: false });
  s.close();
}

const healthy = (await fetch(`${t.url}/healthz`)).status === 200 && (await fetch(`${t.url}/readyz`)).status === 200;
const login = await fetch(`${t.url}/api/auth/login`, {
  method: "POST",
  headers: JSON_H,
  body: JSON.stringify({ email: u1.email, password: "correct horse battery" }),
});
check(healthy && login.status === 200, "gateway healthy after the bad inputs (healthz, readyz, a real login)");
const leftovers = () => readdirSync(uploadTmp).filter((n) => n.startsWith("kikitori-upload-"));
await new Promise((r) => setTimeout(r, 3000));
const tempLeft = leftovers().length;
check(tempLeft === 0, `no upload temp folder left after the bad inputs (${tempLeft} left)`);
for (const o of outcomes) if (!o.clean) failures.push(`${o.kind} ${o.name}: ${o.status} ${o.detail ?? ""}`);

// ---------------------------------------------------------------- 2. faults
const faultRows: Array<[string, string, boolean]> = [];
{
  const u = await user();
  await s3.close();
  const started = Date.now();
  const res = await fetch(`${t.url}/api/upload`, {
    method: "POST",
    headers: upH(u.token),
    body: new Uint8Array(mp(part("model", "meeting"), filePart("a.wav", wav(2)), end)),
  });
  const body = await res.text();
  const jobs = await t.db.transcriptionJob.count({ where: { userId: u.uid } });
  const used = (await t.db.user.findUniqueOrThrow({ where: { id: u.uid } })).secondsUsed;
  let shape = false;
  try {
    shape = errorBodySchema.safeParse(JSON.parse(body)).success;
  } catch {}
  const ok = res.status === 503 && shape && jobs === 0 && used === 0;
  faultRows.push([
    "object store down during an upload",
    `${res.status} in ${Date.now() - started} ms; jobs ${jobs}; charged ${used} s`,
    check(ok, "object store down: clean 503, no job, no charge"),
  ]);
  s3 = await startEmbeddedS3({ port: s3port, address: "127.0.0.1", directory: s3dir, ...s3creds });
  const again = await fetch(`${t.url}/api/upload`, {
    method: "POST",
    headers: upH(u.token),
    body: new Uint8Array(mp(part("model", "meeting"), filePart("a.wav", wav(2)), end)),
  });
  // The recording reaches the store just after the 202 (the gateway's hand-off).
  if (again.status === 202) await audioStored(t, ((await again.json()) as { jobId: string }).jobId);
  const objects = await createObjectStore(loadGatewayConfig(t.env)).removePrefix(`users/${u.uid}/`);
  faultRows.push([
    "object store back: next upload",
    `${again.status}; objects of the user ${objects} (1 = only the accepted upload)`,
    check(again.status === 202 && objects === 1, "object store back: upload accepted, no orphan"),
  ]);
}

{
  // A gateway process SIGKILLed with sockets open: the clients reconnect to the other gateway, read
  // the job there, and the completion (published here by a stand-in for the worker, on the same
  // Redis channel a worker uses) reaches every reconnected socket.
  const c = await startCluster({ logLevel: "warn" });
  try {
    const [g1, g2] = [await c.startGateway(), await c.startGateway()];
    const u = await c.createUser();
    const first = await Promise.all(Array.from({ length: 10 }, () => listen(c.asTestGateway(g1), u.token)));
    const up = await upload(c.asTestGateway(g1), u.token, { data: new Uint8Array(wav(2)), name: "a.wav" });
    const jobId = String(up.body?.jobId);
    const dropped = Promise.all(
      first.map((s) => new Promise((r) => (s.ws.readyState === WebSocket.CLOSED ? r(null) : s.ws.once("close", r)))),
    );
    g1.child.kill("SIGKILL");
    await dropped;
    const again = await Promise.all(first.map(() => listen(c.asTestGateway(g2), u.token)));
    const snap = await fetch(`${g2.url}/api/transcriptions/${jobId}`, {
      headers: { authorization: `Bearer ${u.token}` },
    });
    const redis = createRedis(c.env.REDIS_URL, "client");
    await publishProgress(redis, c.prefix, {
      userId: u.uid,
      correlationId: "faults",
      event: {
        jobId,
        status: "Correction complete",
        correctionProgress: 100,
        rewrittenText: "done",
        correctionTime: 1,
      },
    });
    await redis.quit();
    const seen = await Promise.all(
      again.map((s) =>
        s
          .until((m) => m.jobId === jobId && m.status === "Correction complete", 10_000)
          .then(
            () => true,
            () => false,
          ),
      ),
    );
    for (const s of again) s.close();
    const n = seen.filter(Boolean).length;
    faultRows.push([
      "gateway SIGKILLed with 10 sockets open",
      `upload ${up.status}; snapshot on the other gateway ${snap.status}; completion seen by ${n}/10 reconnected sockets`,
      check(
        up.status === 202 && snap.status === 200 && n === 10,
        "gateway SIGKILL: clients reconnect and see completion",
      ),
    ]);
  } finally {
    await c.close();
  }
}

{
  // Redis restarted while a recording is being transcribed (a Redis of this suite's own, with AOF, so
  // the shared one is not touched): the job must end complete or cleanly failed, charged at most once
  // (exactly once when complete), with no stored object that no job refers to.
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-faults-redis-"));
  const startRedis = () =>
    spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--appendfsync", "always"],
      { stdio: "ignore" },
    );
  let redisProc: ChildProcess = startRedis();
  await waitPort(port);
  const sharedRedis = process.env.REDIS_URL;
  process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
  const r2 = await startTestGateway({ env: { UPLOAD_TMP_DIR: uploadTmp } });
  process.env.REDIS_URL = sharedRedis;
  const workers = await startPipelineWorkers(r2);
  try {
    const { uid, up, jobId, sock } = await uploadUntilTranscribing(r2);
    sock.close();
    const exited = new Promise((r) => redisProc.once("exit", r));
    redisProc.kill("SIGTERM");
    await exited;
    await new Promise((r) => setTimeout(r, 2000));
    redisProc = startRedis();
    await waitPort(port);
    const o = await jobOutcome(r2, uid, jobId, 420_000);
    faultRows.push([
      "Redis restarted mid-transcription",
      `upload ${up.status}; job ${o.status}; usage events ${o.events}, ${o.seconds} s charged; orphaned objects ${o.orphans}`,
      check(
        up.status === 202 && ["completed", "failed"].includes(o.status) && o.chargedOnce && o.orphans === 0,
        "Redis restart: job complete or cleanly failed, charged once, no orphans",
      ),
    ]);
  } finally {
    for (const w of workers) await stopService(w);
    await r2.close().catch(() => undefined);
    const gone = new Promise((r) => (redisProc.exitCode !== null ? r(null) : redisProc.once("exit", r)));
    redisProc.kill("SIGTERM");
    await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
    redisProc.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until something listens on 127.0.0.1:port. */
async function waitPort(port: number, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const up = await new Promise<boolean>((r) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy();
        r(true);
      });
      s.on("error", () => r(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A transcription and a text worker on `stack` (small chunks, one at a time, so a fault lands mid-job). */
async function startPipelineWorkers(stack: TestGateway): Promise<ServiceProcess[]> {
  return [
    await startWorker(stack, "transcription-worker", { CHUNK_SECONDS: "10", CHUNK_CONCURRENCY: "1" }),
    await startWorker(stack, "text-worker"),
  ];
}

/** A premium user uploads the interview fixture; resolves once its transcription has started. */
async function uploadUntilTranscribing(stack: TestGateway) {
  const { uid, email } = await insertVerifiedUser(stack.db, { plan: "premium" });
  const token = await stack.gw.signer.sign({ sub: uid, email, email_verified: true });
  const mp3 = readFileSync(path.resolve(import.meta.dirname, "../tests/fixtures/audio/interview-en.mp3"));
  const sock = await listen(stack, token);
  const up = await upload(
    stack,
    token,
    { data: new Uint8Array(mp3), name: "interview.mp3" },
    { model: "meeting", language: "en" },
  );
  const jobId = String(up.body?.jobId);
  await sock.until((m) => m.jobId === jobId && m.status === "Transcription in progress", 240_000).catch(() => null);
  return { uid, up, jobId, sock };
}

/** The job's end state, what was charged for it, and stored audio no job refers to. */
async function jobOutcome(stack: TestGateway, uid: string, jobId: string, ms: number) {
  const deadline = Date.now() + ms;
  let job = await stack.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } });
  while (!["completed", "failed"].includes(job.status) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    job = await stack.db.transcriptionJob.findUniqueOrThrow({ where: { id: jobId } }).catch(() => job);
  }
  const events = await stack.db.usageEvent.count({ where: { userId: uid } });
  const user = await stack.db.user.findUniqueOrThrow({ where: { id: uid } });
  const known = new Set((await stack.db.transcriptionJob.findMany({ where: { userId: uid } })).map((j) => j.audioKey));
  const { Client } = await import("minio");
  const u = new URL(stack.env.S3_ENDPOINT);
  const mc = new Client({
    endPoint: u.hostname,
    port: Number(u.port),
    useSSL: false,
    accessKey: stack.env.S3_ACCESS_KEY,
    secretKey: stack.env.S3_SECRET_KEY,
  });
  const keys: string[] = [];
  for await (const o of mc.listObjectsV2(stack.env.S3_BUCKET, `users/${uid}/audio/`, true) as AsyncIterable<{
    name: string;
  }>) {
    keys.push(o.name);
  }
  const orphans = keys.filter((k) => !known.has(k)).length;
  const chargedOnce =
    job.status === "completed"
      ? events === 1 && user.secondsUsed === Math.round(job.durationSeconds)
      : events === 0 && user.secondsUsed === 0;
  return { status: job.status, events, seconds: user.secondsUsed, orphans, chargedOnce };
}

{
  // PostgreSQL restarted (fast shutdown, then started again) twice in one job: once while it is
  // transcribed (chunk rows are written then) and once when the socket says "Correction started".
  // A cluster of this suite's own (initdb as the postgres user), so the shared server is not touched.
  const bin = readdirSync("/usr/lib/postgresql")
    .map((v) => `/usr/lib/postgresql/${v}/bin`)
    .find((b) => existsSync(`${b}/initdb`));
  if (!bin) {
    faultRows.push(["PostgreSQL restarted mid-job", "skipped: no PostgreSQL server binaries here", true]);
  } else {
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-faults-pg-"));
    const pwent = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.startsWith("postgres:"))
      ?.split(":");
    const asPostgres = process.getuid?.() === 0 && pwent;
    if (asPostgres) chownSync(dir, Number(pwent[2]), Number(pwent[3]));
    const run = (cmd: string, args: string[]) =>
      asPostgres ? (["runuser", ["-u", "postgres", "--", cmd, ...args]] as const) : ([cmd, args] as const);
    const [ic, ia] = run(`${bin}/initdb`, ["-D", `${dir}/data`, "-A", "trust", "-U", "postgres"]);
    execFileSync(ic, [...ia], { stdio: "ignore" });
    const startPg = () => {
      const [c, a] = run(`${bin}/postgres`, [
        ...["-D", `${dir}/data`, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1"],
      ]);
      return spawn(c, [...a], { stdio: "ignore" });
    };
    const restartPg = async () => {
      // SIGINT: PostgreSQL's fast shutdown (every connection is cut); runuser passes it on.
      await stopPg();
      await new Promise((r) => setTimeout(r, 1000));
      pg = startPg();
      await waitPort(port);
    };
    /** SIGINT to the postmaster itself (PostgreSQL's fast shutdown; runuser does not pass it on). */
    const stopPg = async () => {
      const exited = new Promise((r) => (pg.exitCode !== null ? r(null) : pg.once("exit", r)));
      const pid = Number(readFileSync(`${dir}/data/postmaster.pid`, "utf8").split("\n")[0]);
      process.kill(pid, "SIGINT");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    };
    let pg: ChildProcess = startPg();
    await waitPort(port);
    await new Promise((r) => setTimeout(r, 500));
    const sharedDb = process.env.DATABASE_URL;
    process.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${port}/postgres`;
    const p2 = await startTestGateway({ env: { UPLOAD_TMP_DIR: uploadTmp } });
    process.env.DATABASE_URL = sharedDb;
    const workers = await startPipelineWorkers(p2);
    try {
      const { uid, up, jobId, sock } = await uploadUntilTranscribing(p2);
      await restartPg();
      const sawCorrection = await sock
        .until((m) => m.jobId === jobId && m.status === "Correction started", 300_000)
        .then(
          () => true,
          () => false,
        );
      if (sawCorrection) await restartPg();
      sock.close();
      const o = await jobOutcome(p2, uid, jobId, 420_000);
      faultRows.push([
        "PostgreSQL restarted mid-transcription and at correction start",
        `upload ${up.status}; job ${o.status}; usage events ${o.events}, ${o.seconds} s charged; orphaned objects ${o.orphans}${sawCorrection ? "" : " (correction start not seen: one restart only)"}`,
        check(
          up.status === 202 && ["completed", "failed"].includes(o.status) && o.chargedOnce && o.orphans === 0,
          "PostgreSQL restart: job complete or cleanly failed, charged once, no orphans",
        ),
      ]);
    } finally {
      for (const w of workers) await stopService(w);
      await p2.close().catch(() => undefined);
      await stopPg().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

// ---------------------------------------------------------------- 3. load
const loadRows: Array<[string, string, boolean]> = [];
{
  const users = await Promise.all(Array.from({ length: 200 }, () => user()));
  const bases = [t.url, second.url];
  const times: number[] = [];
  const statuses = new Map<number, number>();
  await Promise.all(
    users.map(async (u, i) => {
      const t0 = performance.now();
      const res = await fetch(`${bases[i % 2]}/api/upload`, {
        method: "POST",
        headers: upH(u.token),
        body: new Uint8Array(mp(part("model", "meeting"), filePart("a.wav", wav(2)), end)),
      });
      await res.text();
      times.push(performance.now() - t0);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }),
  );
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)];
  const fiveXX = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  loadRows.push([
    "200 concurrent uploads on 2 gateways",
    `${[...statuses].map(([s, c]) => `${c}× ${s}`).join(", ")}; accept p50 ${q(0.5).toFixed(0)} ms, p99 ${q(0.99).toFixed(0)} ms`,
    check(fiveXX === 0 && statuses.get(202) === 200, "200 concurrent uploads: all 202, no 5xx"),
  ]);
}
{
  const u = await user();
  const body = JSON.stringify({
    text: "Kikitori turns recorded interviews into clean text. It also writes summaries of long texts. ".repeat(30),
    desiredLength: 400,
    requiredPhrases: ["Kikitori", "summaries"],
  });
  const statuses = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      fetch(`${[t.url, second.url][i % 2]}/api/summary/summarize`, {
        method: "POST",
        headers: { ...JSON_H, authorization: `Bearer ${u.token}` },
        body,
      }).then(async (r) => {
        await r.text();
        return r.status;
      }),
    ),
  );
  const ok200 = statuses.filter((s) => s === 200).length;
  const ok402 = statuses.filter((s) => s === 402).length;
  const counted = (await t.db.user.findUniqueOrThrow({ where: { id: u.uid } })) as unknown as Record<string, unknown>;
  loadRows.push([
    "50 concurrent summaries, quota 3",
    `${ok200}× 200, ${ok402}× 402, other ${50 - ok200 - ok402}; summaries counted ${String(counted.summariesUsed ?? "?")}`,
    check(ok200 === 3 && ok402 === 47, "50 concurrent summaries at quota 3: exactly 3 produced"),
  ]);
}

// ---------------------------------------------------------------- 4. boundaries
const boundaryRows: Array<[string, string, boolean]> = [
  ...(await runMediaBoundaries(t, second)),
  ...(await runAccountBoundaries(t)),
];
for (const [n, , ok] of boundaryRows) check(ok, `boundary: ${n}`);

// ---------------------------------------------------------------- the table
const http0 = outcomes.filter((o) => o.kind === "http");
const ws0 = outcomes.filter((o) => o.kind === "ws");
const line = (cells: string[], widths: number[]) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ");
const w = [44, 8, 16, 8, 6];
console.log("\n=== Fault and abuse suite ===\n");
console.log(line(["bad inputs", "tried", "clean 4xx/close", "not", "hangs"], w));
console.log(line(["-".repeat(44), "-".repeat(8), "-".repeat(16), "-".repeat(8), "-".repeat(6)], w));
for (const [name, list] of [
  ["HTTP", http0],
  ["WebSocket", ws0],
  ["total", outcomes],
] as const) {
  console.log(
    line(
      [
        name,
        String(list.length),
        String(list.filter((o) => o.clean).length),
        String(list.filter((o) => !o.clean).length),
        String(list.filter((o) => o.hang).length),
      ],
      w,
    ),
  );
}
console.log(`service healthy after: ${healthy ? "yes" : "NO"}; upload temp folders left: ${tempLeft}\n`);
const w2 = [40, 80, 4];
console.log(line(["fault / load", "result", "ok"], w2));
console.log(line(["-".repeat(40), "-".repeat(80), "--"], w2));
for (const [n, r, ok] of [...faultRows, ...loadRows]) console.log(line([n, r, ok ? "yes" : "NO"], w2));
console.log(`\n${line(["boundary", "result", "ok"], w2)}`);
console.log(line(["-".repeat(40), "-".repeat(80), "--"], w2));
for (const [n, r, ok] of boundaryRows) console.log(line([n, r, ok ? "yes" : "NO"], w2));
console.log(
  "\nnot covered here: the object store down during a chunk; a worker SIGKILLed mid-chunk (tests/pipeline covers it)",
);
if (failures.length) {
  console.log(`\n${failures.length} failed:\n  ${failures.slice(0, 60).join("\n  ")}`);
}

// ---------------------------------------------------------------- teardown
await stopService(worker);
await second.close();
await t.close();
await s3.close();
rmSync(s3dir, { recursive: true, force: true });
rmSync(uploadTmp, { recursive: true, force: true });
process.exit(failures.length ? 1 : 0);
