import { access } from "node:fs/promises";
import os from "node:os";
import type { SpeechStatus } from "@kikitori/shared";
import type { Logger } from "@kikitori/shared/server";
import type { TranscriptionWorkerConfig } from "../config.ts";
import { type SpeechModelName, speechModelEntry, speechModelFiles } from "../models/catalog.ts";
import { speechModelReady } from "../models/speech-models.ts";
import type { PocketSphinxEngine } from "./pocketsphinx.ts";
import type { TranscriptionEngine } from "./port.ts";
import { RoutedEngine } from "./routed.ts";
import { chooseKind, type RoutableKind, type RouteCandidate, routeTable } from "./routes.ts";
import {
  PARAKEET_V3_LANGUAGES,
  SENSEVOICE_LANGUAGES,
  type SherpaFamily,
  type SherpaModelFiles,
  SherpaOfflineEngine,
  type SherpaOfflineModel,
} from "./sherpa-offline.ts";
import { fallback, type SpeechSetup, startWhisper, statusOf, whisperModelOf } from "./start.ts";

/** The command that fetches a speech model (its archive's SHA-256 is published nowhere: the operator pins it). */
export function pullLine(name: SpeechModelName): string {
  const entry = speechModelEntry(name);
  return entry.archiveSha256
    ? `npm run models -- pull ${name}`
    : `npm run models -- pull ${name} --sha256=<SHA-256 of ${entry.dir}.tar.bz2>`;
}

/** The settings that give each sherpa engine its model (named in the operator's notice, never to users). */
const SHERPA_SETTINGS: Record<SherpaFamily, string> = {
  parakeet: "PARAKEET_MODEL / PARAKEET_MODEL_DIR / MODELS_DIR (npm run models -- pull)",
  sensevoice: "SENSEVOICE_MODEL_DIR / MODELS_DIR (npm run models -- pull)",
};

/**
 * The status notice of a start where present models failed to load (their languages go to the next
 * engine), or null; the rough-fallback notice, when there is one, is more important and wins. Pure.
 */
export function routedAroundNotice(
  candidates: readonly RouteCandidate[],
  rough: SpeechStatus["notice"],
): SpeechStatus["notice"] {
  if (rough) return rough;
  const failed = candidates.filter((c) => c.failure !== null);
  if (failed.length === 0) return null;
  return {
    code: "SPEECH_ROUTED_AROUND",
    setting: failed.map((c) => SHERPA_SETTINGS[c.kind as SherpaFamily] ?? c.kind).join("; "),
    reason: `${failed.map((c) => c.failure).join("; ")}; its languages go to the next engine.`,
  };
}

/** The sherpa model `name` as the engine takes it: from `dir` when given (not checksummed), else MODELS_DIR. */
async function sherpaModel(
  cfg: TranscriptionWorkerConfig,
  name: SpeechModelName,
  dir: string | undefined,
): Promise<{ model: SherpaOfflineModel; present: boolean }> {
  const entry = speechModelEntry(name);
  const files = speechModelFiles(cfg.MODELS_DIR, name, dir) as unknown as SherpaModelFiles;
  const languages =
    entry.languages === "european25"
      ? PARAKEET_V3_LANGUAGES
      : entry.languages === "cjk"
        ? SENSEVOICE_LANGUAGES
        : ["en"];
  const present = dir
    ? (
        await Promise.all(
          Object.values(files).map((f: string) =>
            access(f).then(
              () => true,
              () => false,
            ),
          ),
        )
      ).every(Boolean)
    : await speechModelReady(cfg.MODELS_DIR, name);
  return { model: { family: entry.family, name, files, languages, pull: pullLine(name) }, present };
}

/** Loads one sherpa model when it is present; a model that fails its check is routed around (logged). */
async function startSherpa(
  cfg: TranscriptionWorkerConfig,
  logger: Logger,
  name: SpeechModelName,
  dir: string | undefined,
): Promise<{ candidate: RouteCandidate; engine: SherpaOfflineEngine | null }> {
  const { model, present } = await sherpaModel(cfg, name, dir);
  const candidate: RouteCandidate = {
    kind: model.family,
    languages: model.languages,
    model: name,
    usable: false,
    pull: pullLine(name),
    failure: null,
  };
  if (!present) return { candidate, engine: null };
  const engine = new SherpaOfflineEngine({
    model,
    threads: cfg.SHERPA_THREADS || Math.max(1, os.availableParallelism()),
    timeoutMs: cfg.WHISPER_CHUNK_TIMEOUT_MS,
  });
  try {
    await engine.check();
    logger.info({ engine: engine.name }, "speech model loaded");
    return { candidate: { ...candidate, usable: true }, engine };
  } catch (err) {
    await engine.close();
    const failure = `the ${model.family} model ${name} could not be loaded: ${(err as Error).message}`;
    logger.warn(
      { engine: engine.name, err: (err as Error).message, setting: SHERPA_SETTINGS[model.family] },
      "SPEECH ENGINE ROUTED AROUND: its model could not be loaded; its languages go to the next engine",
    );
    return { candidate: { ...candidate, failure }, engine: null };
  }
}

/**
 * TRANSCRIPTION_ENGINE=auto: loads every engine whose model is here (Parakeet, SenseVoice, Whisper),
 * routes each audio language to the best one (routes.ts), and publishes the routes. With no sherpa
 * model present it is exactly the `whisper` setup (and its fallback), plus the routes naming the
 * models that would do better. A sherpa model present but failing to load is routed around: the
 * status says so (SPEECH_ROUTED_AROUND, unless the rough fallback's notice is more important), and the
 * engine answers which languages it routed around (the jobs' `speech_fallback` notice).
 */
export async function createAutoEngine(
  cfg: TranscriptionWorkerConfig,
  logger: Logger,
  pocketsphinx: () => PocketSphinxEngine,
  perCore: number,
): Promise<SpeechSetup> {
  const parakeet = await startSherpa(cfg, logger, cfg.PARAKEET_MODEL, cfg.PARAKEET_MODEL_DIR);
  const sensevoice = await startSherpa(cfg, logger, "sense-voice-small-int8", cfg.SENSEVOICE_MODEL_DIR);
  const whisper = await startWhisper(cfg, logger);
  const whisperOk = typeof whisper !== "string";
  const candidates: RouteCandidate[] = [
    parakeet.candidate,
    sensevoice.candidate,
    {
      kind: "whisper",
      languages: whisperOk ? whisper.languages : "all",
      model: whisperOk ? whisperModelOf(whisper) : cfg.WHISPER_MODEL,
      usable: whisperOk,
      pull: cfg.WHISPER_MODEL_PATH ? null : `npm run models -- pull ${cfg.WHISPER_MODEL}`,
      failure: null,
    },
    { kind: "pocketsphinx", languages: ["en"], model: "en-us", usable: false, pull: null, failure: null },
  ];
  const engines = new Map<RoutableKind, TranscriptionEngine>();
  if (parakeet.engine) engines.set("parakeet", parakeet.engine);
  if (sensevoice.engine) engines.set("sensevoice", sensevoice.engine);
  if (whisperOk) engines.set("whisper", whisper);
  const failed = candidates.some((c) => c.failure !== null);

  if (!failed && (engines.size === 0 || (engines.size === 1 && whisperOk))) {
    // Whisper alone, or nothing: the `whisper` setup, with the routes.
    const setup = whisperOk
      ? {
          engine: whisper,
          status: statusOf(whisper, whisperModelOf(whisper), null),
          chunkConcurrency: cfg.CHUNK_CONCURRENCY || 1,
        }
      : fallback(cfg, logger, whisper, pocketsphinx, perCore);
    if (setup.engine.kind === "pocketsphinx") candidates[3].usable = true;
    return { ...setup, status: { ...setup.status, routes: routeTable(candidates) } };
  }
  let rough: SpeechStatus["notice"] = null;
  if (!whisperOk && (engines.size === 0 || chooseKind("en", candidates) === null)) {
    if (engines.size === 0 || cfg.TRANSCRIPTION_FALLBACK === "pocketsphinx") {
      // Neither Parakeet nor Whisper for English: the rough engine takes it, with the notice
      // (nothing at all and no fallback allowed: fails to start, as the whisper setup does).
      const setup = fallback(cfg, logger, whisper, pocketsphinx, perCore);
      engines.set("pocketsphinx", setup.engine);
      candidates[3].usable = true;
      rough = setup.status.notice;
    }
  }
  const engine = new RoutedEngine(engines, candidates);
  const routes = routeTable(candidates);
  logger.info({ engine: engine.name }, "speech engines routed per language");
  return {
    engine,
    status: {
      available: true,
      engine: "auto",
      model: [...engines.values()].map((e) => e.name).join(", "),
      languages: engine.languages === "all" ? "all" : [...engine.languages],
      notice: routedAroundNotice(candidates, rough),
      routes,
    },
    chunkConcurrency: cfg.CHUNK_CONCURRENCY || 1,
  };
}
