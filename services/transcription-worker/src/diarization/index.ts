import type { Logger } from "@kikitori/shared/server";
import type { TranscriptionWorkerConfig } from "../config.ts";
import { ClassicDiarizationEngine } from "./classic.ts";
import { sherpaModelsReady } from "./models.ts";
import type { DiarizationEngine } from "./port.ts";
import { SherpaDiarizationEngine } from "./sherpa.ts";

export type { DiarizationEngine, DiarizeOptions, SpeakerSpan } from "./port.ts";

/**
 * Chooses the diarization engine at start (DIARIZATION_ENGINE): `auto` takes `sherpa` when its
 * models are in MODELS_DIR and verified (`npm run models -- pull diarization`), else `classic`;
 * `sherpa` asked for but not usable falls back to `classic` with a warning naming the fix (the engine
 * used is shown on each job); `none` turns the step off (one speaker, turns guessed from the words).
 */
export async function createDiarizationEngine(
  cfg: Pick<TranscriptionWorkerConfig, "DIARIZATION_ENGINE" | "MODELS_DIR">,
  logger: Logger,
): Promise<DiarizationEngine | null> {
  if (cfg.DIARIZATION_ENGINE === "none") return null;
  if (cfg.DIARIZATION_ENGINE === "classic") return new ClassicDiarizationEngine();
  const models = await sherpaModelsReady(cfg.MODELS_DIR);
  let why = `its models are not in ${cfg.MODELS_DIR} (run: npm run models -- pull diarization)`;
  // The neural engine was meant to run (asked for, or its models are there): jobs say it did not.
  const meant = cfg.DIARIZATION_ENGINE === "sherpa" || models !== null;
  if (models) {
    const engine = new SherpaDiarizationEngine(models);
    try {
      await engine.check();
      logger.info({ engine: engine.name }, "speaker diarization models loaded");
      return engine;
    } catch (err) {
      why = (err as Error).message;
    }
  }
  const log = cfg.DIARIZATION_ENGINE === "sherpa" ? logger.warn.bind(logger) : logger.info.bind(logger);
  log({ reason: why, engine: "classic" }, "speaker diarization: sherpa not available, using the classic engine");
  return meant ? new ClassicDiarizationEngine({ notice: "diarization_fallback" }) : new ClassicDiarizationEngine();
}
