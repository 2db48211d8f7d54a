// Uploads that try to hold the gateway or its disk: bodies cut short or stalled, slow drips, no
// boundary, NUL bytes in names, files over the quota by their header, too many at once. Each gets a
// clean 4xx in the error shape, fast, and leaves no temp folder, no object and no job behind.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { createObjectStore, createRedis, ffmpegPath } from "@kikitori/shared/server";
import { api, startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { createUser, upload } from "../../../tests/support/pipeline.ts";
import { TokenRevocations } from "../src/auth/revocation.ts";

jest.setTimeout(60_000);

const tmpDir = mkdtempSync(path.join(os.tmpdir(), "kt-upload-tmp-"));
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({
    env: {
      UPLOAD_TMP_DIR: tmpDir,
      UPLOAD_IDLE_TIMEOUT_MS: "1000",
      UPLOAD_TIMEOUT_MS: "2500",
      UPLOADS_IN_FLIGHT_PER_USER: "2",
    },
  });
});
afterAll(async () => {
  await t?.close();
});

const code = (r: { body: any }) => r.body?.error?.code;
const leftovers = () => readdirSync(tmpDir).filter((n) => n.startsWith("kikitori-upload-"));
async function noLeftovers(ms = 3000): Promise<string[]> {
  const end = Date.now() + ms;
  while (leftovers().length && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return leftovers();
}

const store = () =>
  createObjectStore({
    S3_ENDPOINT: t.env.S3_ENDPOINT,
    S3_ACCESS_KEY: t.env.S3_ACCESS_KEY,
    S3_SECRET_KEY: t.env.S3_SECRET_KEY,
    S3_BUCKET: t.env.S3_BUCKET,
    S3_REGION: "us-east-1",
  });
async function objectsOf(uid: string): Promise<number> {
  return (await store().removePrefix(`users/${uid}/`)) as number;
}

/** PCM WAV of silence; `claimSeconds` makes the header promise more audio than follows. */
function wav(seconds: number, opts: { rate?: number; claimSeconds?: number } = {}): Buffer {
  const rate = opts.rate ?? 8000;
  const bytes = Math.round(seconds * rate) * 2;
  const claimed = Math.round((opts.claimSeconds ?? seconds) * rate) * 2;
  const h = Buffer.alloc(44);
  h.write("RIFF", 0);
  h.writeUInt32LE(Math.min(36 + claimed, 0xffffffff), 4);
  h.write("WAVE", 8);
  h.write("fmt ", 12);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36);
  h.writeUInt32LE(Math.min(claimed, 0xffffffff), 40);
  return Buffer.concat([h, Buffer.alloc(bytes)]);
}

/**
 * A FLAC of `seconds` of silence whose STREAMINFO claims `claimSeconds` (as a long recording would
 * say of itself): ffprobe reads the duration from there without decoding anything.
 */
function flacClaiming(seconds: number, claimSeconds: number): Buffer {
  const file = path.join(tmpDir, `claim-${claimSeconds}.flac`);
  execFileSync(ffmpegPath(), [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", String(seconds)],
    ...["-c:a", "flac", file],
  ]);
  const buf = readFileSync(file);
  rmSync(file);
  // "fLaC", a 4-byte block header, then STREAMINFO: total samples are the low 36 bits of bytes 10-17.
  const at = 4 + 4 + 10;
  const word = buf.readBigUInt64BE(at);
  buf.writeBigUInt64BE((word & ~0xfffffffffn) | BigInt(claimSeconds * 16000), at);
  return buf;
}

const BOUNDARY = "----kikitoriTestBoundary";
function multipartHead(fields: Record<string, string>, filename = "a.wav"): Buffer {
  let s = "";
  for (const [k, v] of Object.entries(fields)) {
    s += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  }
  s += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: audio/wav\r\n\r\n`;
  return Buffer.from(s, "utf8");
}
const multipartTail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/**
 * Sends a request over a raw socket: the head, then `chunks` (with `gapMs` between them), then either
 * half-closes (`end`), or keeps the socket open without sending more (`stall`). Resolves with the
 * response text (empty when the server never answered within `waitMs`) and the time it took.
 */
function rawUpload(opts: {
  token: string;
  contentLength: number;
  chunks: Buffer[];
  gapMs?: number;
  after: "end" | "stall";
  waitMs: number;
  contentType?: string;
}): Promise<{ text: string; status: number; ms: number }> {
  const u = new URL(t.url);
  const started = Date.now();
  return new Promise((resolve) => {
    const sock = net.connect(Number(u.port), u.hostname);
    let text = "";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ text, status, ms: Date.now() - started });
    };
    const timer = setTimeout(finish, opts.waitMs);
    sock.on("data", (d) => {
      text += d.toString("utf8");
      if (/\r\n\r\n/.test(text)) {
        const len = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
        const body = text.slice(text.indexOf("\r\n\r\n") + 4);
        if (len >= 0 && Buffer.byteLength(body) >= len) finish();
      }
    });
    sock.on("close", finish);
    sock.on("error", finish);
    sock.on("connect", async () => {
      sock.write(
        `POST /api/upload HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${opts.token}\r\n` +
          `Content-Type: ${opts.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`}\r\n` +
          `Content-Length: ${opts.contentLength}\r\n\r\n`,
      );
      for (const c of opts.chunks) {
        if (done) return;
        sock.write(c);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      if (opts.after === "end") sock.end();
    });
  });
}

const errorBody = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));

describe("bodies cut short, stalled or dripped", () => {
  it("a body cut short after 3 bytes of the file (client half-closes): a 4xx at once, no temp folder", async () => {
    const user = await createUser(t);
    const head = multipartHead({ model: "meeting" });
    const r = await rawUpload({
      token: user.token,
      contentLength: head.length + 100_000,
      chunks: [head, wav(1).subarray(0, 3)],
      after: "end",
      waitMs: 8000,
    });
    expect(r.status).toBe(400);
    expect(errorBody(r.text).error.code).toBe("REQUEST_INCOMPLETE");
    expect(await noLeftovers()).toEqual([]);
    expect(await t.db.transcriptionJob.count({ where: { userId: user.uid } })).toBe(0);
  });

  it("a body that stops arriving (socket left open): 408 after the idle timeout, no temp folder", async () => {
    const user = await createUser(t);
    const head = multipartHead({ model: "meeting" });
    const r = await rawUpload({
      token: user.token,
      contentLength: head.length + 100_000,
      chunks: [head, wav(1).subarray(0, 3)],
      after: "stall",
      waitMs: 8000,
    });
    expect(r.status).toBe(408);
    expect(errorBody(r.text).error.code).toBe("REQUEST_TIMEOUT");
    expect(r.ms).toBeLessThan(5000);
    expect(await noLeftovers()).toEqual([]);
  });

  it("a slow drip that never goes idle is cut at the total upload time", async () => {
    const user = await createUser(t);
    const head = multipartHead({ model: "meeting" });
    const drip = Array.from({ length: 100 }, () => Buffer.alloc(10));
    const r = await rawUpload({
      token: user.token,
      contentLength: head.length + 100_000,
      chunks: [head, ...drip],
      gapMs: 200,
      after: "stall",
      waitMs: 10_000,
    });
    expect(r.status).toBe(408);
    expect(errorBody(r.text).error.code).toBe("REQUEST_TIMEOUT");
    expect(r.ms).toBeLessThan(6000);
    expect(await noLeftovers()).toEqual([]);
  });

  it("a multipart body that ends without its closing boundary: 400", async () => {
    const user = await createUser(t);
    const head = multipartHead({ model: "meeting" });
    const body = Buffer.concat([head, wav(1).subarray(0, 500)]);
    const r = await rawUpload({
      token: user.token,
      contentLength: body.length,
      chunks: [body],
      after: "stall",
      waitMs: 8000,
    });
    expect(r.status).toBe(400);
    expect(["REQUEST_INCOMPLETE", "VALIDATION_FAILED"]).toContain(errorBody(r.text).error.code);
    expect(await noLeftovers()).toEqual([]);
  });

  it("a complete upload still works and leaves no temp folder", async () => {
    const user = await createUser(t);
    const r = await upload(t, user.token, { data: new Uint8Array(wav(2)), name: "ok.wav" });
    expect(r.status).toBe(202);
    expect(await noLeftovers()).toEqual([]);
  });
});

describe("bad multipart requests answer 4xx in the error shape", () => {
  it("multipart without a boundary", async () => {
    const user = await createUser(t);
    const r = await api(t.url, "POST", "/api/upload", {
      token: user.token,
      rawBody: "--x\r\n",
      headers: { "content-type": "multipart/form-data" },
    });
    expect(r.status).toBe(400);
    expect(code(r)).toBe("VALIDATION_FAILED");
    expect(await noLeftovers()).toEqual([]);
  });

  it.each([
    ["a NUL byte in a name field", { model: "meeting", interviewer: "Ann\u0000Lee" }, "a.wav"],
    ["a NUL byte in the file name", { model: "meeting" }, "a\u0000b.wav"],
  ])("%s: 400, nothing stored, no job", async (_n, fields, filename) => {
    const user = await createUser(t);
    const body = Buffer.concat([multipartHead(fields, filename), wav(2), multipartTail]);
    const res = await fetch(`${t.url}/api/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.token}`, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      body,
    });
    const json = (await res.json()) as any;
    expect([res.status, json.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(await t.db.transcriptionJob.count({ where: { userId: user.uid } })).toBe(0);
    expect(await objectsOf(user.uid)).toBe(0);
  });

  it("no token: 401 before anything is read", async () => {
    const r = await api(t.url, "POST", "/api/upload", {
      rawBody: "--x\r\n",
      headers: { "content-type": "multipart/form-data" },
    });
    expect([r.status, code(r)]).toEqual([401, "UNAUTHENTICATED"]);
  });

  it("a token whose login ended: 401 while the body is still arriving, no job, no temp folder", async () => {
    const user = await createUser(t);
    const redis = createRedis(t.env.REDIS_URL, "producer");
    await new Promise((ready) => redis.once("ready", ready));
    try {
      // A password reset ends every ID token issued before it (checked while the body arrives).
      await new TokenRevocations(redis, t.prefix, 3600).endAllSessions(user.uid, Date.now() + 1000);
    } finally {
      await redis.quit();
    }
    const head = multipartHead({ model: "meeting" });
    const r = await rawUpload({
      token: user.token,
      contentLength: head.length + 100_000,
      chunks: [head, Buffer.alloc(10)],
      after: "stall",
      waitMs: 4000,
    });
    expect([r.status, /"code":"(\w+)"/.exec(r.text)?.[1]]).toEqual([401, "TOKEN_EXPIRED"]);
    expect(r.ms).toBeLessThan(900); // not the 1 s idle timeout: the body was cut
    expect(await t.db.transcriptionJob.count({ where: { userId: user.uid } })).toBe(0);
    expect(await noLeftovers()).toEqual([]);
  });
});

describe("quota before work", () => {
  it("a file whose header says it is longer than the minutes left is refused at once (402)", async () => {
    const user = await createUser(t);
    // 24 hours by its header, 2 s of data: the header alone settles it (before, the whole file was
    // decoded first, and this one then failed as damaged).
    const r = await upload(t, user.token, { data: new Uint8Array(flacClaiming(2, 86_400)), name: "day.flac" });
    expect([r.status, r.body?.error?.code]).toEqual([402, "QUOTA_EXCEEDED"]);
    expect(await objectsOf(user.uid)).toBe(0);
  });

  it("a recording over the minutes left (header and data agree) is refused quickly (402)", async () => {
    const user = await createUser(t, { secondsUsed: 30 * 60 - 60 });
    const started = Date.now();
    const r = await upload(t, user.token, { data: new Uint8Array(wav(180)), name: "three-min.wav" });
    expect([r.status, r.body?.error?.code]).toEqual([402, "QUOTA_EXCEEDED"]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("more uploads in flight than allowed per user: 429, other users unaffected, slots given back", async () => {
    const user = await createUser(t);
    const head = multipartHead({ model: "meeting" });
    // Two uploads that hang mid-body hold both of the user's slots…
    const hanging = [0, 1].map(() =>
      rawUpload({
        token: user.token,
        contentLength: head.length + 100_000,
        chunks: [head, Buffer.alloc(10)],
        after: "stall",
        waitMs: 4000,
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    // …so a third is refused at once; another user is not affected.
    const third = await upload(t, user.token, { data: new Uint8Array(wav(1)), name: "third.wav" });
    expect([third.status, third.body?.error?.code]).toEqual([429, "RATE_LIMITED"]);
    const other = await createUser(t);
    expect((await upload(t, other.token, { data: new Uint8Array(wav(1)), name: "o.wav" })).status).toBe(202);
    expect((await Promise.all(hanging)).map((h) => h.status)).toEqual([408, 408]);
    await new Promise((r) => setTimeout(r, 200));
    // Slots are given back when the hanging uploads end.
    expect((await upload(t, user.token, { data: new Uint8Array(wav(1)), name: "later.wav" })).status).toBe(202);
    expect(await noLeftovers()).toEqual([]);
  });
});
