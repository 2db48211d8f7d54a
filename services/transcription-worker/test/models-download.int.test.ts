import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { modelFile } from "../src/models/catalog.ts";
import {
  isFileVerified,
  isModelReady,
  ModelDownloadError,
  modelState,
  type PullProgress,
  pullFile,
  pullModel,
  verifyModel,
} from "../src/models/download.ts";

// A local stand-in of the model host: `handle` answers each request; every request is recorded.
const DATA = randomBytes(1_000_000 + 123);
const SHA1 = createHash("sha1").update(DATA).digest("hex");
const NAME = "tiny";
const FILE = "ggml-tiny.bin";

interface Seen {
  url: string;
  range?: string;
}
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

let server: http.Server;
let baseUrl: string;
let seen: Seen[] = [];
let handle: Handler;
let dir: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", range: req.headers.range });
    handle(req, res, seen.length);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/models`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen = [];
  handle = serveFile;
  dir = mkdtempSync(path.join(os.tmpdir(), "kikitori-models-"));
});
afterEach(() => {
  server.closeAllConnections();
  rmSync(dir, { recursive: true, force: true });
});

/** A well-behaved server: the file, or the asked-for range of it (206), or 416 past its end. */
const serveFile: Handler = (req, res) => {
  if (!/^\/models\/ggml-[\w.-]+\.bin$/.test(req.url ?? "")) {
    res.writeHead(404).end("not found");
    return;
  }
  const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  if (!m) {
    res.writeHead(200, { "content-length": DATA.length }).end(DATA);
    return;
  }
  const start = Number(m[1]);
  if (start >= DATA.length) {
    res.writeHead(416, { "content-range": `bytes */${DATA.length}` }).end();
    return;
  }
  res
    .writeHead(206, {
      "content-length": DATA.length - start,
      "content-range": `bytes ${start}-${DATA.length - 1}/${DATA.length}`,
    })
    .end(DATA.subarray(start));
};

/** Sends the headers for the whole file and `bytes` of it, then drops the connection. */
const cutAfter =
  (bytes: number): Handler =>
  (_req, res) => {
    res.writeHead(200, { "content-length": DATA.length });
    res.write(DATA.subarray(0, bytes), () => setTimeout(() => res.destroy(), 50));
  };

const pull = (extra: Partial<Parameters<typeof pullModel>[0]> = {}) =>
  pullModel({ name: NAME, modelsDir: dir, baseUrl, expectedSha1: SHA1, retries: 0, retryDelayMs: 10, ...extra });

const final = () => modelFile(dir, NAME);
const part = () => `${final()}.part`;
const marker = () => `${final()}.sha1`;

it("downloads the whole file, verifies it, renames it into place and writes the marker", async () => {
  const progress: PullProgress[] = [];
  const result = await pull({ onProgress: (p) => progress.push(p) });

  expect(result).toMatchObject({ path: final(), sha1: SHA1, bytes: DATA.length, downloaded: true, resumed: false });
  expect(readFileSync(final()).equals(DATA)).toBe(true);
  expect(existsSync(part())).toBe(false);
  expect(readFileSync(marker(), "utf8")).toBe(`${SHA1}  ${FILE}\n`);
  expect(seen).toEqual([{ url: `/models/${FILE}`, range: undefined }]);
  expect(progress.at(-1)).toEqual({ received: DATA.length, total: DATA.length });
  expect(progress.length).toBeGreaterThan(2);
  expect(await isModelReady(dir, NAME, SHA1)).toBe(true);
  expect(await verifyModel(final(), NAME, { expectedSha1: SHA1 })).toMatchObject({ ok: true, actual: SHA1 });
});

it("resumes a download cut midway with a Range request", async () => {
  handle = cutAfter(400_000);
  const err = await pull().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ModelDownloadError);
  expect((err as ModelDownloadError).kind).toBe("network");
  expect((err as Error).message).toContain(`${baseUrl}/${FILE}`);
  expect(existsSync(final())).toBe(false);
  const kept = statSync(part()).size;
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(DATA.length);
  expect(await modelState(dir, NAME, SHA1)).toBe("partial");

  handle = serveFile;
  seen = [];
  const result = await pull();
  expect(seen).toEqual([{ url: `/models/${FILE}`, range: `bytes=${kept}-` }]);
  expect(result).toMatchObject({ downloaded: true, resumed: true, bytes: DATA.length });
  expect(readFileSync(final()).equals(DATA)).toBe(true);
  expect(existsSync(part())).toBe(false);
});

it("retries by itself after a dropped connection, resuming where it stopped", async () => {
  handle = (req, res, n) => (n === 1 ? cutAfter(300_000)(req, res, n) : serveFile(req, res, n));
  const retries: string[] = [];
  const result = await pull({ retries: 2, onRetry: (e) => retries.push(e.kind) });
  expect(retries).toEqual(["network"]);
  expect(seen).toHaveLength(2);
  expect(seen[1].range).toMatch(/^bytes=\d+-$/);
  expect(result.resumed).toBe(true);
  expect(readFileSync(final()).equals(DATA)).toBe(true);
});

it("starts over when the server ignores Range and sends the whole file (200)", async () => {
  writeFileSync(part(), randomBytes(5000)); // not even the right bytes: must be replaced, not appended to
  handle = (_req, res) => {
    res.writeHead(200, { "content-length": DATA.length }).end(DATA);
  };
  const result = await pull();
  expect(seen[0].range).toBe("bytes=5000-");
  expect(result.resumed).toBe(false);
  expect(readFileSync(final()).equals(DATA)).toBe(true);
});

it("takes a part that is already whole (416) without downloading again", async () => {
  writeFileSync(part(), DATA);
  const result = await pull();
  expect(seen).toEqual([{ url: `/models/${FILE}`, range: `bytes=${DATA.length}-` }]);
  expect(result).toMatchObject({ downloaded: true, bytes: DATA.length });
  expect(readFileSync(final()).equals(DATA)).toBe(true);
});

it("refuses a file whose SHA-1 does not match, deletes it and puts nothing in place", async () => {
  const wrong = createHash("sha1").update("something else").digest("hex");
  const err = await pull({ expectedSha1: wrong }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ModelDownloadError);
  expect((err as ModelDownloadError).kind).toBe("checksum");
  expect((err as Error).message).toMatch(new RegExp(`SHA-1 mismatch.*expected ${wrong}, got ${SHA1}`));
  expect((err as Error).message).toContain(`${baseUrl}/${FILE}`);
  expect(existsSync(final())).toBe(false);
  expect(existsSync(part())).toBe(false);
  expect(existsSync(marker())).toBe(false);
});

it("fails clearly on 404, naming the URL", async () => {
  const err = await pull({ baseUrl: `${baseUrl}/nowhere`, retries: 3 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ModelDownloadError);
  expect(err).toMatchObject({ kind: "http", status: 404, url: `${baseUrl}/nowhere/${FILE}` });
  expect((err as Error).message).toContain(`${baseUrl}/nowhere/${FILE}`);
  expect((err as Error).message).toContain("404");
  expect(seen).toHaveLength(1); // a 404 is not retried
  expect(existsSync(final())).toBe(false);
});

it("gives up after the idle time-out, naming the URL, and keeps the part for resume", async () => {
  handle = (_req, res) => {
    res.writeHead(200, { "content-length": DATA.length });
    res.write(DATA.subarray(0, 200_000)); // … and then nothing
  };
  const t0 = Date.now();
  const err = await pull({ timeoutMs: 300 }).catch((e: unknown) => e);
  expect(Date.now() - t0).toBeLessThan(5000);
  expect(err).toBeInstanceOf(ModelDownloadError);
  expect((err as ModelDownloadError).kind).toBe("timeout");
  expect((err as Error).message).toContain(`${baseUrl}/${FILE}`);
  expect((err as Error).message).toMatch(/no data for 0\.3 s/);
  expect(existsSync(part())).toBe(true);
  expect(statSync(part()).size).toBeGreaterThan(0);
  expect(existsSync(final())).toBe(false);
});

it("makes no request at all when the file is already there and verified", async () => {
  await pull();
  seen = [];
  const result = await pull();
  expect(result).toMatchObject({ downloaded: false, sha1: SHA1, bytes: DATA.length });
  expect(seen).toHaveLength(0);
});

it("checks a present file without a (matching) marker by hashing it, again without a request", async () => {
  writeFileSync(final(), DATA);
  expect(await modelState(dir, NAME, SHA1)).toBe("unverified");
  expect(await isModelReady(dir, NAME, SHA1)).toBe(false);
  expect(await pull()).toMatchObject({ downloaded: false });
  expect(seen).toHaveLength(0);
  expect(await isModelReady(dir, NAME, SHA1)).toBe(true);

  // A marker naming another SHA-1 (the catalogue changed) is not trusted: the file is hashed again.
  writeFileSync(marker(), `${"0".repeat(40)}  ${FILE}\n`);
  expect(await isModelReady(dir, NAME, SHA1)).toBe(false);
  expect(await pull()).toMatchObject({ downloaded: false });
  expect(readFileSync(marker(), "utf8")).toBe(`${SHA1}  ${FILE}\n`);

  // Nor is a marker older than the file (the file was replaced after it was verified).
  const past = new Date(Date.now() - 60_000);
  utimesSync(marker(), past, past);
  expect(await isModelReady(dir, NAME, SHA1)).toBe(false);
  expect(seen).toHaveLength(0);
});

it("replaces a present file that does not verify", async () => {
  writeFileSync(final(), randomBytes(1000));
  const result = await pull();
  expect(result.downloaded).toBe(true);
  expect(seen).toHaveLength(1);
  expect(readFileSync(final()).equals(DATA)).toBe(true);
  expect(await verifyModel(final(), NAME, { expectedSha1: SHA1 })).toMatchObject({ ok: true });
});

it("verifyModel reports a damaged file and drops its marker", async () => {
  await pull();
  writeFileSync(final(), randomBytes(1000));
  const v = await verifyModel(final(), NAME, { expectedSha1: SHA1 });
  expect(v).toMatchObject({ ok: false, expected: SHA1 });
  expect(v.actual).toMatch(/^[0-9a-f]{40}$/);
  expect(existsSync(marker())).toBe(false);
  expect(await verifyModel(path.join(dir, "nope.bin"), NAME)).toMatchObject({ ok: false, actual: null });
});

it("refuses a model without a published SHA-1 unless one is given, before any request", async () => {
  const err = await pullModel({ name: "tiny-q5_1", modelsDir: dir, baseUrl }).catch((e: unknown) => e);
  expect(err).toMatchObject({ kind: "no-checksum" });
  expect((err as Error).message).toContain("tiny-q5_1");
  expect(seen).toHaveLength(0);

  // Given one, it downloads; the marker then stands for that SHA-1 (the worker knows no other).
  expect(await pullModel({ name: "tiny-q5_1", modelsDir: dir, baseUrl, expectedSha1: SHA1 })).toMatchObject({
    downloaded: true,
  });
  expect(seen).toEqual([{ url: "/models/ggml-tiny-q5_1.bin", range: undefined }]);
  expect(await modelState(dir, "tiny-q5_1")).toBe("verified");
  expect(await pullModel({ name: "tiny-q5_1", modelsDir: dir, baseUrl })).toMatchObject({
    downloaded: false,
    sha1: SHA1,
  });
  expect(await verifyModel(modelFile(dir, "tiny-q5_1"), "tiny-q5_1")).toMatchObject({ ok: true, expected: SHA1 });
  expect(seen).toHaveLength(1);
});

it("lets one of two concurrent pulls download; the other waits and takes the result", async () => {
  handle = (req, res, n) => setTimeout(() => serveFile(req, res, n), 300);
  const waits: string[] = [];
  const [a, b] = await Promise.all([pull(), pull({ onWait: (holder) => waits.push(holder) })]);
  expect(seen).toHaveLength(1);
  expect([a.downloaded, b.downloaded].sort()).toEqual([false, true]);
  expect(waits).toEqual([`${process.pid}@${os.hostname()}`]);
  expect(readFileSync(final()).equals(DATA)).toBe(true);
  expect(existsSync(`${final()}.lock`)).toBe(false);
});

it("takes over the lock of a process that is gone, or one not touched for a minute", async () => {
  writeFileSync(`${final()}.lock`, `2147483646@${os.hostname()}\n`);
  expect(await pull()).toMatchObject({ downloaded: true });

  rmSync(final());
  writeFileSync(`${final()}.lock`, "1@another-host\n");
  const past = new Date(Date.now() - 120_000);
  utimesSync(`${final()}.lock`, past, past);
  expect(await pull()).toMatchObject({ downloaded: true });
  expect(seen).toHaveLength(2);
  expect(existsSync(`${final()}.lock`)).toBe(false);
});

it("stops on the caller's signal and keeps the part", async () => {
  handle = (_req, res) => {
    res.writeHead(200, { "content-length": DATA.length });
    res.write(DATA.subarray(0, 100_000));
  };
  const ac = new AbortController();
  const err = await pull({
    signal: ac.signal,
    retries: 3,
    onProgress: (p) => p.received >= 100_000 && ac.abort(),
  }).catch((e: unknown) => e);
  expect(err).toMatchObject({ kind: "aborted" });
  expect(seen).toHaveLength(1);
  expect(existsSync(final())).toBe(false);
});

describe("pullFile (any file, SHA-256: the diarization models)", () => {
  const SHA256 = createHash("sha256").update(DATA).digest("hex");
  const target = () => path.join(dir, "sherpa", "model.onnx");

  it("downloads, checks the SHA-256, resumes a cut download and writes a .sha256 marker", async () => {
    handle = (req, res, n) => (n === 1 ? cutAfter(300_000)(req, res, n) : serveFile(req, res, n));
    const r = await pullFile({
      url: `${baseUrl}/ggml-any.bin`,
      file: target(),
      checksum: SHA256,
      retries: 1,
      retryDelayMs: 10,
    });
    expect(r).toMatchObject({ sha1: SHA256, downloaded: true, resumed: true });
    expect(readFileSync(target()).equals(DATA)).toBe(true);
    expect(readFileSync(`${target()}.sha256`, "utf8")).toBe(`${SHA256}  model.onnx\n`);
    expect(await isFileVerified(target(), SHA256)).toBe(true);
    const again = await pullFile({ url: `${baseUrl}/ggml-any.bin`, file: target(), checksum: SHA256 });
    expect(again.downloaded).toBe(false);
  });

  it("refuses a file whose SHA-256 does not match and leaves nothing in place", async () => {
    const wrong = "0".repeat(64);
    await expect(
      pullFile({ url: `${baseUrl}/ggml-any.bin`, file: target(), checksum: wrong, retries: 0 }),
    ).rejects.toThrow(/SHA-256 mismatch/);
    expect(existsSync(target())).toBe(false);
    expect(existsSync(`${target()}.part`)).toBe(false);
    expect(await isFileVerified(target(), wrong)).toBe(false);
  });

  it("refuses a checksum that is neither SHA-256 nor SHA-1, before any request", async () => {
    await expect(pullFile({ url: `${baseUrl}/ggml-any.bin`, file: target(), checksum: "abc" })).rejects.toThrow(
      /neither/,
    );
    expect(seen).toEqual([]);
  });
});
