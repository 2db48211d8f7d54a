import { createHash, type Hash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { setTimeout as sleep } from "node:timers/promises";
import { modelEntry, modelUrl, type WhisperModelName } from "./catalog.ts";
import { lock } from "./file-lock.ts";

/**
 * Downloads whisper.cpp models into a directory, safely:
 * - the file is written to `<file>.part`, hashed (SHA-1) while it streams to disk, and renamed into
 *   place only once the hash matches the catalogue; a mismatch deletes it;
 * - an interrupted download resumes with an HTTP Range request (a server that answers 200 instead
 *   of 206 sends the whole file again, which then replaces the part);
 * - a verified file gets a marker `<file>.sha1` (sha1sum format), so later starts need not hash
 *   1.5 GB again; a marker that is missing, older than the file or names another SHA-1 means the
 *   file is hashed again;
 * - `<file>.lock` keeps two processes sharing the directory from writing the same part at once.
 */

export type ModelDownloadErrorKind = "no-checksum" | "http" | "timeout" | "network" | "checksum" | "aborted";

export class ModelDownloadError extends Error {
  readonly kind: ModelDownloadErrorKind;
  readonly url: string;
  /** HTTP status, for kind "http". */
  readonly status?: number;

  constructor(
    kind: ModelDownloadErrorKind,
    message: string,
    url: string,
    opts: { status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "ModelDownloadError";
    this.kind = kind;
    this.url = url;
    this.status = opts.status;
  }

  /** Whether trying again may help: a time-out, a dropped connection, a 5xx or 429. */
  get retryable(): boolean {
    if (this.kind === "timeout" || this.kind === "network") return true;
    return this.kind === "http" && (this.status === 429 || (this.status ?? 0) >= 500);
  }
}

export interface PullProgress {
  /** Bytes of the file on disk so far (a resumed download starts at the size of the part). */
  received: number;
  /** Size of the whole file, when the server says. */
  total: number | null;
}

export interface PullModelOptions {
  name: WhisperModelName;
  modelsDir: string;
  /** Where the files are (a mirror, a test server); default: the catalogue's URL (Hugging Face). */
  baseUrl?: string;
  /** SHA-1 the file must have, instead of the catalogue's (a mirror's own build, tests, models without one). */
  expectedSha1?: string;
  /** A download that receives no byte for this long fails (the part is kept). Default 30 s. */
  timeoutMs?: number;
  /** Further attempts after a time-out, a dropped connection, a 5xx or 429, resuming each time. Default 3. */
  retries?: number;
  /** Wait before the n-th retry: n × this. Default 2 s. */
  retryDelayMs?: number;
  onProgress?: (p: PullProgress) => void;
  /** Called once when another process is downloading the same file and this one waits for it. */
  onWait?: (holder: string) => void;
  /** Called before each retry with the error that caused it. */
  onRetry?: (err: ModelDownloadError, attempt: number) => void;
  /** Stops the download (the part is kept for resume). */
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
}

export interface PullModelResult {
  path: string;
  sha1: string;
  /** Size of the file in bytes. */
  bytes: number;
  /** False when the file was already there and verified (nothing was downloaded). */
  downloaded: boolean;
  /** True when the download continued an earlier part. */
  resumed: boolean;
}

export interface ModelVerification {
  ok: boolean;
  path: string;
  /** SHA-1 the file must have; null when the catalogue publishes none and none was given or recorded. */
  expected: string | null;
  /** SHA-1 of the file; null when there is no file. */
  actual: string | null;
}

export type ModelState =
  /** File present with a marker naming the expected SHA-1. */
  | "verified"
  /** File present, not (or no longer) verified: the next pull hashes it. */
  | "unverified"
  /** Only an interrupted download (`.part`) is there. */
  | "partial"
  | "missing";

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 3;
const DEFAULT_RETRY_DELAY_MS = 2_000;

/** The digest a checksum is of: 64 hex digits SHA-256 (sherpa-onnx models), 40 SHA-1 (whisper.cpp's). */
type Algorithm = "sha1" | "sha256";
const algorithmOf = (digest: string | null | undefined): Algorithm =>
  digest?.trim().length === 64 ? "sha256" : "sha1";

/** `<file>.sha1` (or `.sha256`): the checksum a file was verified against, in sha1sum's format. */
export const markerPath = (file: string, algorithm: Algorithm = "sha1"): string => `${file}.${algorithm}`;
export const partPath = (file: string): string => `${file}.part`;

/** SHA-1 (hex) of a file, read as a stream. */
export async function sha1File(file: string, signal?: AbortSignal, algorithm: Algorithm = "sha1"): Promise<string> {
  const hash = createHash(algorithm);
  await hashInto(hash, file, signal);
  return hash.digest("hex");
}

/**
 * Makes sure `ggml-<name>.bin` is in `modelsDir` and verified: returns at once when it is there
 * with a matching marker, hashes it when it is there without one, else downloads it (resuming a
 * part). Throws a ModelDownloadError naming the URL when the model cannot be had.
 */
export async function pullModel(opts: PullModelOptions): Promise<PullModelResult> {
  const entry = modelEntry(opts.name);
  const url = modelUrl(opts.name, opts.baseUrl);
  if (opts.expectedSha1 !== undefined && !normalizeSha1(opts.expectedSha1)) {
    throw new Error(`expected SHA-1 "${opts.expectedSha1}" is not 40 hexadecimal digits`);
  }
  const expected = normalizeSha1(opts.expectedSha1 ?? entry.sha1);
  const file = path.join(opts.modelsDir, entry.file);

  const ready = await alreadyVerified(file, expected);
  if (ready) return ready;
  if (!expected) {
    throw new ModelDownloadError(
      "no-checksum",
      `whisper.cpp publishes no SHA-1 for model "${entry.name}": give the SHA-1 the file must have (--sha1 / expectedSha1) to download it`,
      url,
    );
  }
  return pullVerified(file, url, expected, opts);
}

export interface PullFileOptions extends Omit<PullModelOptions, "name" | "modelsDir" | "baseUrl" | "expectedSha1"> {
  url: string;
  /** Where the file goes (its directory is created). */
  file: string;
  /** SHA-256 (64 hex digits) or SHA-1 (40) the file must have. */
  checksum: string;
}

/**
 * Any file, as safely as a Whisper model (resume, checksum, marker, lock, retries): used for the
 * speaker-diarization models. The result's `sha1` field holds the checksum, whichever digest it is.
 */
export async function pullFile(opts: PullFileOptions): Promise<PullModelResult> {
  const expected = normalizeSha1(opts.checksum);
  if (!expected) throw new Error(`checksum "${opts.checksum}" is neither a SHA-256 nor a SHA-1`);
  return (await alreadyVerified(opts.file, expected)) ?? pullVerified(opts.file, opts.url, expected, opts);
}

/** Whether `file` is there with a marker naming `checksum` (no hashing). */
export async function isFileVerified(file: string, checksum: string): Promise<boolean> {
  return (await alreadyVerified(file, normalizeSha1(checksum))) !== null;
}

async function pullVerified(
  file: string,
  url: string,
  expected: string,
  opts: Omit<PullModelOptions, "name" | "modelsDir">,
): Promise<PullModelResult> {
  await mkdir(path.dirname(file), { recursive: true });
  const release = await lock(file, opts);
  try {
    // Another process may have fetched it while this one waited for the lock.
    return (await alreadyVerified(file, expected)) ?? (await fetchVerified(file, url, expected, opts));
  } finally {
    await release();
  }
}

/** The result for a file that is there with a marker naming `expected` (any SHA-1 when it is null). */
async function alreadyVerified(file: string, expected: string | null): Promise<PullModelResult | null> {
  const present = await statOrNull(file);
  const recorded = present && (await markerSha1(file, present.mtimeMs, algorithmOf(expected)));
  if (!present || !recorded || (expected !== null && recorded !== expected)) return null;
  return { path: file, sha1: recorded, bytes: present.size, downloaded: false, resumed: false };
}

/** Hashes a present file without a marker; downloads (with retries) when there is none or it is wrong. */
async function fetchVerified(
  file: string,
  url: string,
  expected: string,
  opts: Omit<PullModelOptions, "name" | "modelsDir">,
): Promise<PullModelResult> {
  const algorithm = algorithmOf(expected);
  const present = await statOrNull(file);
  if (present) {
    if ((await sha1File(file, opts.signal, algorithm)) === expected) {
      await writeMarker(file, expected);
      return { path: file, sha1: expected, bytes: present.size, downloaded: false, resumed: false };
    }
    // A damaged or different file: replace it.
    await rm(file, { force: true });
  }
  await rm(markerPath(file, algorithm), { force: true });

  const part = partPath(file);
  const retries = opts.retries ?? DEFAULT_RETRIES;
  for (let attempt = 0; ; attempt++) {
    try {
      const got = await downloadToPart(url, part, expected, opts);
      if (got.sha1 !== expected) {
        await rm(part, { force: true });
        throw new ModelDownloadError(
          "checksum",
          `${algorithm === "sha1" ? "SHA-1" : "SHA-256"} mismatch for ${path.basename(file)} from ${url}: expected ${expected}, got ${got.sha1}; the download was deleted`,
          url,
        );
      }
      await fsync(part);
      await rename(part, file);
      await writeMarker(file, expected);
      return { path: file, sha1: expected, bytes: got.bytes, downloaded: true, resumed: got.resumed };
    } catch (err) {
      const retry = err instanceof ModelDownloadError && err.retryable && attempt < retries && !opts.signal?.aborted;
      if (!retry) throw err;
      opts.onRetry?.(err, attempt + 1);
      await sleep((opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS) * (attempt + 1), undefined, { signal: opts.signal });
    }
  }
}

/**
 * Hashes the file at `file` and compares it with the catalogue's SHA-1 of `name` (or `expectedSha1`;
 * for a model the catalogue has none for, the SHA-1 its marker recorded when it was pulled).
 * Writes the marker when it matches and removes it when it does not (best effort: a read-only
 * directory is fine).
 */
export async function verifyModel(
  file: string,
  name: WhisperModelName,
  opts: { expectedSha1?: string; signal?: AbortSignal } = {},
): Promise<ModelVerification> {
  const expected = normalizeSha1(opts.expectedSha1 ?? modelEntry(name).sha1) ?? (await markerSha1(file, 0));
  if (!(await statOrNull(file))) return { ok: false, path: file, expected, actual: null };
  const actual = await sha1File(file, opts.signal);
  const ok = expected !== null && actual === expected;
  try {
    if (ok) await writeMarker(file, actual);
    else await rm(markerPath(file), { force: true });
  } catch {
    // The marker only saves time.
  }
  return { ok, path: file, expected, actual };
}

/**
 * True when the model file is in `modelsDir` with a marker naming its expected SHA-1 (no hashing).
 * For a model the catalogue has no SHA-1 for, any marker will do: one is only written after the file
 * matched the SHA-1 given when it was pulled.
 */
export async function isModelReady(modelsDir: string, name: WhisperModelName, expectedSha1?: string): Promise<boolean> {
  return (await modelState(modelsDir, name, expectedSha1)) === "verified";
}

/** What of model `name` is in `modelsDir` (no hashing). */
export async function modelState(
  modelsDir: string,
  name: WhisperModelName,
  expectedSha1?: string,
): Promise<ModelState> {
  const file = path.join(modelsDir, modelEntry(name).file);
  const expected = normalizeSha1(expectedSha1 ?? modelEntry(name).sha1);
  const present = await statOrNull(file);
  if (present) {
    const recorded = await markerSha1(file, present.mtimeMs);
    return recorded && (expected === null || recorded === expected) ? "verified" : "unverified";
  }
  return (await statOrNull(partPath(file))) ? "partial" : "missing";
}

/** The error a failed download ends with: a stall, the caller's abort, a local file error, or the network. */
function downloadFailure(
  err: unknown,
  at: { url: string; timeoutMs: number; timedOut: boolean; aborted: boolean; received: number },
): unknown {
  const { url, received } = at;
  if (err instanceof ModelDownloadError) return err;
  if (at.timedOut) {
    return new ModelDownloadError(
      "timeout",
      `download of ${url} stalled: no data for ${at.timeoutMs / 1000} s${received > 0 ? ` after ${received} bytes (the part is kept; run again to resume)` : ""}`,
      url,
      { cause: err },
    );
  }
  if (at.aborted) {
    return new ModelDownloadError("aborted", `download of ${url} stopped after ${received} bytes`, url, {
      cause: err,
    });
  }
  // A local file error (disk full, permissions: it names its system call) is not the network's:
  // pass it on as it is. fetch reports network faults as TypeError with the cause inside.
  if ((err as NodeJS.ErrnoException)?.syscall) return err;
  const kept = received > 0 ? ` after ${received} bytes (the part is kept; run again to resume)` : "";
  return new ModelDownloadError("network", `download of ${url} failed: ${causeMessage(err)}${kept}`, url, {
    cause: err,
  });
}

/** Streams the file at `url` into `part` (resuming it), hashing as it goes. */
async function downloadToPart(
  url: string,
  part: string,
  expected: string,
  opts: Omit<PullModelOptions, "name" | "modelsDir">,
): Promise<{ sha1: string; bytes: number; resumed: boolean }> {
  const fetchImpl = opts.fetchImpl ?? fetch;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let start = (await statOrNull(part))?.size ?? 0;
  let hash = createHash(algorithmOf(expected));
  if (start > 0) await hashInto(hash, part, opts.signal);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  let received = start;

  try {
    const headers: Record<string, string> = { "accept-encoding": "identity" };
    if (start > 0) headers.range = `bytes=${start}-`;
    const res = await fetchImpl(url, { headers, signal: controller.signal });
    timer.refresh();

    if (res.status === 416 && start > 0) {
      // Nothing left to send: the part may be the whole file already. Else it is not ours: start over.
      await res.body?.cancel().catch(() => {});
      const sha1 = hash.digest("hex");
      if (sha1 === expected) return { sha1, bytes: start, resumed: true };
      await rm(part, { force: true });
      return downloadToPart(url, part, expected, opts);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      const status = `HTTP ${res.status} ${res.statusText}`.trim();
      throw new ModelDownloadError("http", `download of ${url} failed: ${status}`, url, { status: res.status });
    }
    if (!res.body) throw new ModelDownloadError("network", `download of ${url} failed: empty response`, url);

    let total: number | null;
    let resumed = false;
    if (res.status === 206) {
      const range = parseContentRange(res.headers.get("content-range"));
      if (start === 0) {
        await res.body.cancel().catch(() => {});
        throw new ModelDownloadError("http", `download of ${url} failed: HTTP 206 without a Range request`, url, {
          status: 206,
        });
      }
      if (!range || range.start !== start) {
        // Not the range asked for: drop the part and fetch the whole file.
        await res.body.cancel().catch(() => {});
        await rm(part, { force: true });
        return downloadToPart(url, part, expected, opts);
      }
      total = range.total;
      resumed = true;
    } else {
      // The whole file (also from a server that ignores Range): it replaces the part.
      start = 0;
      received = 0;
      hash = createHash(algorithmOf(expected));
      const length = Number(res.headers.get("content-length"));
      total = res.headers.has("content-length") && Number.isFinite(length) ? length : null;
    }

    opts.onProgress?.({ received, total });
    const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
    await pipeline(
      body,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          timer.refresh();
          hash.update(chunk);
          received += chunk.length;
          opts.onProgress?.({ received, total });
          yield chunk;
        }
      },
      createWriteStream(part, { flags: start > 0 ? "a" : "w" }),
    );
    if (total !== null && received !== total) {
      throw new ModelDownloadError(
        "network",
        `download of ${url} ended after ${received} of ${total} bytes (the part is kept; run again to resume)`,
        url,
      );
    }
    return { sha1: hash.digest("hex"), bytes: received, resumed };
  } catch (err) {
    throw downloadFailure(err, { url, timeoutMs, timedOut, aborted: opts.signal?.aborted === true, received });
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

async function hashInto(hash: Hash, file: string, signal?: AbortSignal): Promise<void> {
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20, signal })) hash.update(chunk as Buffer);
}

/** The SHA-1 the marker of `file` records, unless there is none or it is older than the file. */
async function markerSha1(file: string, fileMtimeMs: number, algorithm: Algorithm = "sha1"): Promise<string | null> {
  const marker = markerPath(file, algorithm);
  const st = await statOrNull(marker);
  if (!st || st.mtimeMs < fileMtimeMs) return null;
  const text = await readFile(marker, "utf8").catch(() => "");
  return normalizeSha1(text.trim().split(/\s+/)[0]);
}

/** `<sha1>  <file name>`: the format of sha1sum, so `sha1sum -c ggml-base.bin.sha1` checks it too. */
async function writeMarker(file: string, sha1: string): Promise<void> {
  const marker = markerPath(file, algorithmOf(sha1));
  const tmp = `${marker}.tmp`;
  await writeFile(tmp, `${sha1}  ${path.basename(file)}\n`);
  await rename(tmp, marker);
}

async function fsync(file: string): Promise<void> {
  const fh = await open(file, "r+");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function statOrNull(file: string) {
  try {
    const st = await stat(file);
    return st.isFile() ? st : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function normalizeSha1(sha1: string | null | undefined): string | null {
  const s = sha1?.trim().toLowerCase();
  return s && /^([0-9a-f]{40}|[0-9a-f]{64})$/.test(s) ? s : null;
}

/** `bytes 100-199/1000` → start 100, total 1000 (null when `*`). */
function parseContentRange(value: string | null): { start: number; total: number | null } | null {
  const m = /^bytes\s+(\d+)-\d+\/(\d+|\*)$/i.exec(value?.trim() ?? "");
  return m ? { start: Number(m[1]), total: m[2] === "*" ? null : Number(m[2]) } : null;
}

/** "fetch failed" says little: the cause (ECONNREFUSED, "other side closed") says more. */
function causeMessage(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string } };
  const parts = [e?.message, e?.cause?.code ?? e?.cause?.message].filter(Boolean);
  return parts.join(": ") || String(err);
}
