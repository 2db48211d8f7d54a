import { execFile } from "node:child_process";
import { mkdtemp, rename, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { isFileVerified, type PullModelResult, type PullProgress, pullFile, sha1File } from "../models/download.ts";

/**
 * The models of the `sherpa` diarization engine (k2-fsa/sherpa-onnx releases), with the SHA-256 of
 * each file. The checksums were taken from two independent projects that pin the same release
 * assets (file sizes given too); they are checked on every download like the Whisper models.
 * - segmentation: pyannote segmentation-3.0 exported to ONNX by sherpa-onnx (MIT), a .tar.bz2 whose
 *   `model.onnx` is extracted (and checked again);
 * - embedding: NVIDIA NeMo TitaNet-small speaker embeddings exported to ONNX by sherpa-onnx.
 */
export const SHERPA_RELEASES = "https://github.com/k2-fsa/sherpa-onnx/releases/download";

export const SHERPA_MODELS = {
  segmentation: {
    url: `${SHERPA_RELEASES}/speaker-segmentation-models/sherpa-onnx-pyannote-segmentation-3-0.tar.bz2`,
    archive: "sherpa-onnx-pyannote-segmentation-3-0.tar.bz2",
    archiveSha256: "24615ee884c897d9d2ba09bb4d30da6bb1b15e685065962db5b02e76e4996488",
    archiveBytes: 6_958_444,
    member: "sherpa-onnx-pyannote-segmentation-3-0/model.onnx",
    file: "sherpa-pyannote-segmentation-3-0.onnx",
    sha256: "220ad67ca923bef2fa91f2390c786097bf305bceb5e261d4af67b38e938e1079",
  },
  embedding: {
    url: `${SHERPA_RELEASES}/speaker-recongition-models/nemo_en_titanet_small.onnx`,
    file: "sherpa-nemo_en_titanet_small.onnx",
    sha256: "ad4a1802485d8b34c722d2a9d04249662f2ece5d28a7a039063ca22f515a789e",
    bytes: 40_257_283,
  },
} as const;

/** Name shown on jobs diarized by the sherpa engine. */
export const SHERPA_ENGINE_NAME = "sherpa:pyannote-3.0+titanet-small";

export interface SherpaModelPaths {
  segmentation: string;
  embedding: string;
}

export const sherpaModelPaths = (modelsDir: string): SherpaModelPaths => ({
  segmentation: path.join(modelsDir, SHERPA_MODELS.segmentation.file),
  embedding: path.join(modelsDir, SHERPA_MODELS.embedding.file),
});

/** The model paths when both files are there and verified (their markers name the right SHA-256), else null. */
export async function sherpaModelsReady(modelsDir: string): Promise<SherpaModelPaths | null> {
  const p = sherpaModelPaths(modelsDir);
  const ok =
    (await isFileVerified(p.segmentation, SHERPA_MODELS.segmentation.sha256)) &&
    (await isFileVerified(p.embedding, SHERPA_MODELS.embedding.sha256));
  return ok ? p : null;
}

const exec = promisify(execFile);

export interface PullSherpaOptions {
  modelsDir: string;
  /** A mirror of the release assets (tests: a local server); same file names under it. */
  baseUrl?: string;
  onProgress?: (file: string, p: PullProgress) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
  retries?: number;
  fetchImpl?: typeof fetch;
}

/**
 * Downloads and verifies both models into `modelsDir` (resuming, checksummed, locked like the Whisper
 * models); the segmentation archive is unpacked with tar (bzip2) and its model checked again. A file
 * that fails a check is deleted, never used.
 */
export async function pullSherpaModels(opts: PullSherpaOptions): Promise<SherpaModelPaths> {
  const p = sherpaModelPaths(opts.modelsDir);
  const url = (u: string) => (opts.baseUrl ? `${opts.baseUrl.replace(/\/$/, "")}/${u.split("/").pop()}` : u);
  const common = (file: string) => ({
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
    retries: opts.retries,
    fetchImpl: opts.fetchImpl,
    onProgress: (pr: PullProgress) => opts.onProgress?.(file, pr),
  });
  await pullFile({
    url: url(SHERPA_MODELS.embedding.url),
    file: p.embedding,
    checksum: SHERPA_MODELS.embedding.sha256,
    ...common(SHERPA_MODELS.embedding.file),
  });
  if (!(await isFileVerified(p.segmentation, SHERPA_MODELS.segmentation.sha256))) {
    const seg = SHERPA_MODELS.segmentation;
    const archive = path.join(opts.modelsDir, seg.archive);
    await pullFile({ url: url(seg.url), file: archive, checksum: seg.archiveSha256, ...common(seg.archive) });
    await extractMember(archive, seg.member, p.segmentation, seg.sha256);
    await rm(archive, { force: true });
    await rm(`${archive}.sha256`, { force: true });
  }
  return p;
}

/** Unpacks one member of a .tar.bz2 to `dest` and checks its SHA-256 (then writes its marker). */
async function extractMember(archive: string, member: string, dest: string, sha256: string): Promise<PullModelResult> {
  const dir = await mkdtemp(path.join(path.dirname(dest), ".unpack-"));
  try {
    await exec("tar", ["-xjf", archive, "-C", dir, member]).catch((err: Error) => {
      throw new Error(`could not unpack ${path.basename(archive)} (tar with bzip2 is needed): ${err.message}`);
    });
    const got = await sha1File(path.join(dir, member), undefined, "sha256");
    if (got !== sha256)
      throw new Error(`SHA-256 mismatch for ${member} in ${path.basename(archive)}: expected ${sha256}, got ${got}`);
    await rename(path.join(dir, member), dest);
    // pullFile on a present file with the right checksum only writes its marker.
    return await pullFile({ url: "file:///unused", file: dest, checksum: sha256 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
