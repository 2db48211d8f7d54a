import { execFile } from "node:child_process";
import { mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { type SpeechModelName, speechModelEntry, speechModelFiles, speechModelUrl } from "./catalog.ts";
import { ModelDownloadError, type PullProgress, pullFile } from "./download.ts";

const exec = promisify(execFile);

/** Written into the unpacked directory once every file was found: the archive's SHA-256. */
const MARKER = ".extracted";

const dirOf = (modelsDir: string, name: SpeechModelName) => path.join(modelsDir, speechModelEntry(name).dir);

/** Whether `name` is unpacked in `modelsDir` (its marker written and every file there and not empty). */
export async function speechModelReady(modelsDir: string, name: SpeechModelName): Promise<boolean> {
  const dir = dirOf(modelsDir, name);
  const marker = await readFile(path.join(dir, MARKER), "utf8").catch(() => null);
  if (!marker?.trim()) return false;
  return filesPresent(speechModelFiles(modelsDir, name));
}

async function filesPresent(files: Record<string, string>): Promise<boolean> {
  for (const f of Object.values(files)) {
    const s = await stat(f).catch(() => null);
    if (!s?.isFile() || s.size === 0) return false;
  }
  return true;
}

export interface PullSpeechModelOptions {
  modelsDir: string;
  name: SpeechModelName;
  /** The archive's SHA-256, for the models whose publisher gives none (all of them today). */
  sha256?: string;
  /** A mirror of the release archives (tests: a local server); same file names under it. */
  baseUrl?: string;
  onProgress?: (p: PullProgress) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
  retries?: number;
  fetchImpl?: typeof fetch;
}

export interface PullSpeechModelResult {
  dir: string;
  files: Record<string, string>;
  /** False when it was there already. */
  downloaded: boolean;
}

/**
 * Downloads the release archive of `name` (resuming, checksummed, locked like the Whisper models),
 * unpacks it with tar (bzip2) into a temporary directory, checks every file the engine loads is
 * there, and only then moves the directory into place and writes its marker; the archive is deleted.
 * Without a SHA-256 (none is published) it refuses, naming the option that pins one.
 */
export async function pullSpeechModel(opts: PullSpeechModelOptions): Promise<PullSpeechModelResult> {
  const entry = speechModelEntry(opts.name);
  const dir = dirOf(opts.modelsDir, opts.name);
  const files = speechModelFiles(opts.modelsDir, opts.name);
  if (await speechModelReady(opts.modelsDir, opts.name)) return { dir, files, downloaded: false };
  const url = speechModelUrl(opts.name, opts.baseUrl);
  const checksum = opts.sha256 ?? entry.archiveSha256;
  if (!checksum) {
    throw new ModelDownloadError(
      "no-checksum",
      `sherpa-onnx publishes no SHA-256 for "${opts.name}" (${path.basename(url)}): check the archive and pin it with npm run models -- pull ${opts.name} --sha256=<hex>`,
      url,
    );
  }
  if (!/^[0-9a-f]{64}$/i.test(checksum.trim())) throw new Error(`SHA-256 "${checksum}" is not 64 hexadecimal digits`);
  const archive = path.join(opts.modelsDir, `${entry.dir}.tar.bz2`);
  await pullFile({
    url,
    file: archive,
    checksum: checksum.trim().toLowerCase(),
    onProgress: opts.onProgress,
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
    retries: opts.retries,
    fetchImpl: opts.fetchImpl,
  });
  await unpack(archive, opts.modelsDir, opts.name);
  await writeFile(path.join(dir, MARKER), `${checksum.trim().toLowerCase()}  ${path.basename(archive)}\n`);
  await rm(archive, { force: true });
  await rm(`${archive}.sha256`, { force: true });
  return { dir, files, downloaded: true };
}

/** Unpacks the archive beside its final place and moves the model's directory in when it is whole. */
async function unpack(archive: string, modelsDir: string, name: SpeechModelName): Promise<void> {
  const entry = speechModelEntry(name);
  const tmp = await mkdtemp(path.join(modelsDir, ".unpack-"));
  try {
    await exec("tar", ["-xjf", archive, "-C", tmp]).catch((err: Error) => {
      throw new Error(`could not unpack ${path.basename(archive)} (tar with bzip2 is needed): ${err.message}`);
    });
    const unpacked = speechModelFiles(modelsDir, name, path.join(tmp, entry.dir));
    for (const [role, file] of Object.entries(unpacked)) {
      const s = await stat(file).catch(() => null);
      if (!s?.isFile() || s.size === 0)
        throw new Error(
          `${path.basename(archive)} lacks ${entry.dir}/${path.basename(file)} (the ${role} of ${name}); nothing was installed`,
        );
    }
    const dest = dirOf(modelsDir, name);
    await rm(dest, { recursive: true, force: true });
    await rename(path.join(tmp, entry.dir), dest);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
