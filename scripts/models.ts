// `npm run models -- pull [name…] | list | verify [name…]`: the whisper.cpp models and the speaker
// diarization models (`diarization`) in MODELS_DIR (default var/models). pull downloads and verifies
// (resuming an interrupted download), list shows the catalogue and what is there, verify hashes the
// files again. See docs/decisions/0014-whisper-models.md and 0017-speaker-diarization.md.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import {
  pullSherpaModels,
  SHERPA_MODELS,
  sherpaModelPaths,
  sherpaModelsReady,
} from "../services/transcription-worker/src/diarization/models.ts";
import {
  DEFAULT_WHISPER_MODEL,
  isSpeechModelName,
  isWhisperModelName,
  modelFile,
  SPEECH_MODEL_NAMES,
  SPEECH_MODELS,
  type SpeechModelName,
  WHISPER_MODEL_NAMES,
  WHISPER_MODELS,
  type WhisperModelEntry,
  type WhisperModelName,
} from "../services/transcription-worker/src/models/catalog.ts";
import {
  ModelDownloadError,
  modelState,
  type PullProgress,
  partPath,
  pullModel,
  verifyModel,
} from "../services/transcription-worker/src/models/download.ts";
import { pullSpeechModel, speechModelReady } from "../services/transcription-worker/src/models/speech-models.ts";

const USAGE = `Usage: npm run models -- <command> [model…] [--sha1 <hex>] [--sha256 <hex>]

  pull [model…]    download and verify (default: $WHISPER_MODEL, else ${DEFAULT_WHISPER_MODEL}, and the speaker
                   diarization models unless DIARIZATION_ENGINE is classic or none); resumes a cut download
                   "diarization" names the diarization models (sherpa-onnx: pyannote segmentation + TitaNet)
  list             the models, their size, memory and quality, and which are in MODELS_DIR
  verify [model…]  hash the files again (default: every model in MODELS_DIR)

  --sha1 <hex>     the SHA-1 the file must have (one model): for models whisper.cpp publishes none for
  --sha256 <hex>   the SHA-256 of a speech model's archive (${SPEECH_MODEL_NAMES.join(", ")}):
                   sherpa-onnx publishes none, so the one you checked pins it (TRANSCRIPTION_ENGINE=auto)

Environment: MODELS_DIR (default var/models), WHISPER_MODEL, WHISPER_MODEL_BASE_URL (a mirror),
DIARIZATION_ENGINE, DIARIZATION_MODEL_BASE_URL (a mirror of the sherpa-onnx release files),
SPEECH_MODEL_BASE_URL (a mirror of the sherpa-onnx asr-models release archives).`;

const DIARIZATION = "diarization";

class UsageError extends Error {}

const REPO = path.resolve(import.meta.dirname, "..");
const modelsDir = path.resolve(process.env.MODELS_DIR || path.join(REPO, "var/models"));
const MB = 1024 * 1024;

function parseArgs(argv: string[]): { command: string; names: string[]; sha1?: string; sha256?: string } {
  const rest: string[] = [];
  let sha1: string | undefined;
  let sha256: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--sha1") sha1 = argv[++i];
    else if (a.startsWith("--sha1=")) sha1 = a.slice("--sha1=".length);
    else if (a === "--sha256") sha256 = argv[++i];
    else if (a.startsWith("--sha256=")) sha256 = a.slice("--sha256=".length);
    else if (a === "-h" || a === "--help") rest.unshift("help");
    else if (a.startsWith("-")) throw new UsageError(`unknown option ${a}`);
    else rest.push(a);
  }
  if (argv.includes("--sha1") && !sha1) throw new UsageError("--sha1 needs a value");
  if (argv.includes("--sha256") && !sha256) throw new UsageError("--sha256 needs a value");
  const [command = "help", ...names] = rest;
  return { command, names, sha1, sha256 };
}

function modelNames(names: string[]): WhisperModelName[] {
  const unknown = names.filter((n) => !isWhisperModelName(n) && !isSpeechModelName(n) && n !== DIARIZATION);
  if (unknown.length) {
    throw new UsageError(
      `unknown model ${unknown.map((n) => `"${n}"`).join(", ")}; known: ${[...WHISPER_MODEL_NAMES, ...SPEECH_MODEL_NAMES].join(", ")}`,
    );
  }
  return names.filter(isWhisperModelName);
}

/** Whether `pull` without names fetches the diarization models too (DIARIZATION_ENGINE auto or sherpa). */
const wantsDiarization = () => !["classic", "none"].includes(process.env.DIARIZATION_ENGINE ?? "auto");

/** Pulls the sherpa-onnx diarization models. Exit code: 0, 1 on a failure, 130 when interrupted. */
async function pullDiarization(signal: AbortSignal): Promise<number> {
  const bars = new Map<string, ReturnType<typeof progressReporter>>();
  try {
    const p = await pullSherpaModels({
      modelsDir,
      baseUrl: process.env.DIARIZATION_MODEL_BASE_URL || undefined,
      signal,
      onProgress: (file, pr) => {
        if (!bars.has(file)) bars.set(file, progressReporter(file, process.stderr));
        bars.get(file)?.update(pr);
      },
    });
    for (const b of bars.values()) b.done();
    console.log(`${DIARIZATION}: verified → ${p.segmentation}, ${p.embedding}`);
    return 0;
  } catch (err) {
    for (const b of bars.values()) b.done();
    if (signal.aborted) {
      console.error(`${DIARIZATION}: interrupted; the part is kept, run the same command again to resume`);
      return 130;
    }
    console.error(
      `${DIARIZATION}: ${(err as Error).message} (the classic engine, which needs no model, tells the voices apart meanwhile)`,
    );
    return 1;
  }
}

/** Pulls sherpa-onnx speech models (archive, unpack, files checked). Exit code: 0, 1, 130 when interrupted. */
async function pullSpeech(names: SpeechModelName[], sha256: string | undefined, signal: AbortSignal): Promise<number> {
  if (sha256 && names.length > 1) throw new UsageError("--sha256 applies to one model; name only one");
  for (const name of names) {
    const progress = progressReporter(`${name}.tar.bz2`, process.stderr);
    try {
      const r = await pullSpeechModel({
        modelsDir,
        name,
        sha256,
        baseUrl: process.env.SPEECH_MODEL_BASE_URL || undefined,
        signal,
        onProgress: progress.update,
      });
      progress.done();
      console.log(
        r.downloaded ? `${name}: downloaded, verified and unpacked → ${r.dir}` : `${name}: already present → ${r.dir}`,
      );
    } catch (err) {
      progress.done();
      if (signal.aborted) {
        console.error(`${name}: interrupted; the part is kept, run the same command again to resume`);
        return 130;
      }
      console.error(`${name}: ${(err as Error).message}`);
      return 1;
    }
  }
  return 0;
}

function defaultModel(): WhisperModelName {
  const fromEnv = process.env.WHISPER_MODEL;
  if (!fromEnv) return DEFAULT_WHISPER_MODEL;
  if (!isWhisperModelName(fromEnv)) throw new UsageError(`WHISPER_MODEL="${fromEnv}" is not a known model`);
  return fromEnv;
}

const fmtMB = (bytes: number) => (bytes / MB).toFixed(1);

function fmtDuration(s: number): string {
  if (!Number.isFinite(s)) return "--";
  const m = Math.floor(s / 60);
  return m >= 60
    ? `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`
    : m
      ? `${m}m${String(Math.round(s % 60)).padStart(2, "0")}s`
      : `${Math.round(s)}s`;
}

/** Progress: a redrawn bar on a terminal, one line per 10 % (or per 100 MB of unknown size) elsewhere. */
function progressReporter(
  file: string,
  out: NodeJS.WriteStream,
): { update: (p: PullProgress) => void; done: () => void } {
  const tty = out.isTTY === true;
  let t0 = Date.now();
  let first: number | null = null;
  let lastDraw = 0;
  let lastStep = -1;
  let drawn = false;

  const line = (p: PullProgress): string => {
    const secs = (Date.now() - t0) / 1000;
    const rate = secs > 0 ? (p.received - (first ?? 0)) / secs : 0;
    const speed = `${fmtMB(rate)} MB/s`;
    if (!p.total) return `${file}  ${fmtMB(p.received)} MB  ${speed}`;
    const frac = Math.min(1, p.received / p.total);
    const pct = `${Math.floor(frac * 100)}%`.padStart(4);
    const eta = rate > 0 ? fmtDuration((p.total - p.received) / rate) : "--";
    const size = `${fmtMB(p.received)}/${fmtMB(p.total)} MB`;
    if (!tty) return `${file}: ${pct.trim()} (${size}, ${speed}, ETA ${eta})`;
    const width = 24;
    const filled = Math.round(frac * width);
    return `${file}  [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${pct}  ${size}  ${speed}  ETA ${eta}`;
  };

  return {
    update(p) {
      if (first === null) {
        // The start (or a resume, after hashing the part) is the reference for the speed.
        first = p.received;
        t0 = Date.now();
      }
      if (tty) {
        const now = Date.now();
        if (now - lastDraw < 100 && p.received !== p.total) return;
        lastDraw = now;
        out.write(`\r${line(p)}\x1b[K`);
        drawn = true;
        return;
      }
      const step = p.total ? Math.floor((p.received / p.total) * 10) : Math.floor(p.received / (100 * MB));
      if (step === lastStep) return;
      const starting = lastStep === -1;
      lastStep = step;
      if (starting) return; // where it starts is not news
      out.write(`${line(p)}\n`);
    },
    done() {
      if (tty && drawn) out.write("\n");
    },
  };
}

/** Exit code: 0, 1 on a failure, 130 when interrupted. */
async function pull(names: WhisperModelName[], sha1: string | undefined, signal: AbortSignal): Promise<number> {
  if (sha1 && names.length > 1) throw new UsageError("--sha1 applies to one model; name only one");
  const baseUrl = process.env.WHISPER_MODEL_BASE_URL || undefined;
  for (const name of names) {
    const file = modelFile(modelsDir, name);
    const progress = progressReporter(path.basename(file), process.stderr);
    const partial = existsSync(partPath(file)) ? statSync(partPath(file)).size : 0;
    if (partial) console.error(`${path.basename(file)}: continuing a partial download (${fmtMB(partial)} MB)`);
    try {
      const r = await pullModel({
        name,
        modelsDir,
        baseUrl,
        expectedSha1: sha1,
        signal,
        onProgress: progress.update,
        onWait: (holder) =>
          console.error(`${path.basename(file)}: another download (${holder}) is running; waiting for it`),
        onRetry: (err, attempt) => {
          progress.done();
          console.error(`${path.basename(file)}: ${err.message}; retrying (${attempt})…`);
        },
      });
      progress.done();
      if (partial && r.downloaded && !r.resumed)
        console.error(`${name}: the server did not resume; downloaded from the start`);
      console.log(
        r.downloaded
          ? `${name}: downloaded and verified, ${fmtMB(r.bytes)} MB → ${r.path} (sha1 ${r.sha1})`
          : `${name}: already present and verified → ${r.path}`,
      );
    } catch (err) {
      progress.done();
      if (signal.aborted) {
        console.error(`${name}: interrupted; the part is kept, run the same command again to resume`);
        return 130;
      }
      console.error(`${name}: ${(err as Error).message}`);
      return 1;
    }
  }
  return 0;
}

async function list(): Promise<boolean> {
  const def = defaultModel();
  const rows: string[][] = [["model", "size", "memory", "WER", "JSUT CER", "languages", "SHA-1", "in MODELS_DIR"]];
  const num = (v: number | null) => (v === null ? "—" : `${v.toFixed(1)} %`);
  for (const m of WHISPER_MODELS) {
    rows.push([
      m.name === def ? `${m.name} *` : m.name,
      m.sizeMB >= 1000 ? `${(m.sizeMB / 1024).toFixed(1)} GB` : `${m.sizeMB} MB`,
      `${m.memoryGB} GB`,
      num(m.librispeechWer),
      num(m.jsutCer),
      m.multilingual ? "all" : "English",
      m.sha1 ? "published" : "—",
      await stateLabel(m),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const right = new Set([1, 2, 3, 4]);
  for (const r of rows) {
    console.log(
      r
        .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join("  ")
        .trimEnd(),
    );
  }
  console.log("\nspeech models (sherpa-onnx, TRANSCRIPTION_ENGINE=auto):");
  for (const m of SPEECH_MODELS) {
    const state = (await speechModelReady(modelsDir, m.name)) ? "unpacked" : "not in MODELS_DIR";
    console.log(`  ${m.name.padEnd(28)} ${String(m.sizeMB).padStart(4)} MB  ${m.memoryGB} GB  ${m.quality}  ${state}`);
  }
  const ready = await sherpaModelsReady(modelsDir);
  const paths = sherpaModelPaths(modelsDir);
  console.log(
    `\n${DIARIZATION} (sherpa-onnx): ${SHERPA_MODELS.segmentation.file} + ${SHERPA_MODELS.embedding.file}, ` +
      `${(SHERPA_MODELS.embedding.bytes / MB + 5.7).toFixed(0)} MB: ${ready ? "verified" : existsSync(paths.embedding) || existsSync(paths.segmentation) ? "present, not verified" : "not in MODELS_DIR"}`,
  );
  console.log(
    `\nMODELS_DIR=${modelsDir}   * = default (WHISPER_MODEL)   WER: LibriSpeech test-clean, whisper.cpp; JSUT CER: Japanese; lower is better`,
  );
  return true;
}

async function stateLabel(m: WhisperModelEntry): Promise<string> {
  const state = await modelState(modelsDir, m.name);
  if (state === "verified") return "verified";
  if (state === "unverified") return "present, not verified";
  if (state === "partial") return `partial (${fmtMB(statSync(partPath(modelFile(modelsDir, m.name))).size)} MB)`;
  return "";
}

async function verify(names: WhisperModelName[], sha1: string | undefined, signal: AbortSignal): Promise<boolean> {
  if (sha1 && names.length !== 1) throw new UsageError("--sha1 applies to one model; name it");
  let todo = names;
  if (!todo.length) {
    todo = WHISPER_MODEL_NAMES.filter((n) => existsSync(modelFile(modelsDir, n)));
    if (!todo.length) {
      console.error(`no model files in ${modelsDir}`);
      return false;
    }
  }
  let ok = true;
  for (const name of todo) {
    const v = await verifyModel(modelFile(modelsDir, name), name, { expectedSha1: sha1, signal });
    if (v.ok) console.log(`${name}: ok (sha1 ${v.actual})`);
    else if (v.actual === null) console.error(`${name}: missing (${v.path}); run: npm run models -- pull ${name}`);
    else if (v.expected === null)
      console.error(`${name}: no SHA-1 to check against (sha1 ${v.actual}); give one with --sha1`);
    else console.error(`${name}: SHA-1 MISMATCH: expected ${v.expected}, got ${v.actual} (${v.path}); pull it again`);
    ok &&= v.ok;
  }
  return ok;
}

async function main(): Promise<number> {
  const { command, names, sha1, sha256 } = parseArgs(process.argv.slice(2));
  const ac = new AbortController();
  process.once("SIGINT", () => ac.abort());
  process.once("SIGTERM", () => ac.abort());
  switch (command) {
    case "pull": {
      const whisper = names.length ? modelNames(names) : [defaultModel()];
      const diarization = names.length ? names.includes(DIARIZATION) : wantsDiarization();
      const speech = names.filter(isSpeechModelName);
      let code = whisper.length ? await pull(whisper, sha1, ac.signal) : 0;
      if (speech.length && code !== 130) code = Math.max(code, await pullSpeech(speech, sha256, ac.signal));
      if (diarization && code !== 130) code = Math.max(code, await pullDiarization(ac.signal));
      return code;
    }
    case "list":
      return (await list()) ? 0 : 1;
    case "verify":
      return (await verify(modelNames(names), sha1, ac.signal)) ? 0 : 1;
    case "help":
      console.log(USAGE);
      return 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

try {
  process.exitCode = await main();
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`models: ${err.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(
      `models: ${err instanceof ModelDownloadError ? err.message : String((err as Error)?.message ?? err)}`,
    );
    process.exitCode = 1;
  }
}
