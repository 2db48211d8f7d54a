import { AUDIO_LANGUAGE_CODES, type SpeechEngineName, type SpeechRoute } from "@kikitori/shared";
import { PARAKEET_V3_LANGUAGES, SENSEVOICE_LANGUAGES } from "./sherpa-offline.ts";

/** The engines `auto` chooses between, by their kind. */
export type RoutableKind = Extract<SpeechEngineName, "parakeet" | "sensevoice" | "whisper" | "pocketsphinx">;

/** Languages SenseVoice is preferred for (English goes to Parakeet, then Whisper). */
const SENSEVOICE_FIRST: readonly string[] = SENSEVOICE_LANGUAGES.filter((l) => l !== "en");
const PARAKEET_V3: readonly string[] = PARAKEET_V3_LANGUAGES;

/**
 * The engines for an audio language, best first: Parakeet for its 25 European languages, SenseVoice
 * for Japanese, Chinese, Korean and Cantonese, Whisper for every language (and after the others),
 * pocketsphinx last for English. Pure.
 */
export function preferenceOf(language: string): RoutableKind[] {
  if (SENSEVOICE_FIRST.includes(language)) return ["sensevoice", "whisper"];
  if (language === "en") return ["parakeet", "whisper", "pocketsphinx"];
  if (PARAKEET_V3.includes(language)) return ["parakeet", "whisper"];
  return ["whisper"];
}

/** What `auto` knows of one engine: the languages it takes and its model, and whether it is usable here. */
export interface RouteCandidate {
  kind: RoutableKind;
  /** Audio languages it takes ("all" for Whisper's multilingual models). */
  languages: "all" | readonly string[];
  /** Model name shown in the routes ("parakeet-tdt-0.6b-v3-int8", "base", "en-us"). */
  model: string;
  /** The model is on disk and loaded. */
  usable: boolean;
  /** The command that fetches its model, where it is missing. */
  pull: string | null;
  /** Why its model, present here, failed to load at start (its languages are routed around it); null otherwise. */
  failure: string | null;
}

const takes = (c: RouteCandidate, language: string) => c.languages === "all" || c.languages.includes(language);

/** The first usable engine for `language`, in preference order, or null (the language is refused). Pure. */
export function chooseKind(language: string, candidates: readonly RouteCandidate[]): RoutableKind | null {
  for (const kind of preferenceOf(language)) {
    const c = candidates.find((x) => x.kind === kind);
    if (c?.usable && takes(c, language)) return kind;
  }
  return null;
}

/**
 * The engine better than the one chosen for `language` whose model is present but failed to load at
 * start (the language is routed around it), or null: a language that goes to a lower engine only
 * because the better model was never pulled is not routed around. Pure.
 */
export function routedAroundFor(language: string, candidates: readonly RouteCandidate[]): RouteCandidate | null {
  const order = preferenceOf(language);
  const kind = chooseKind(language, candidates);
  const end = kind === null ? order.length : order.indexOf(kind);
  for (const better of order.slice(0, end)) {
    const c = candidates.find((x) => x.kind === better);
    if (c?.failure && takes(c, language)) return c;
  }
  return null;
}

/**
 * Every audio language's route: the engine and model it goes to, when a better engine for it is not
 * usable because its model is missing, the command that fetches that model, and when a better model
 * is present but failed to load, which and why. Pure.
 */
export function routeTable(candidates: readonly RouteCandidate[]): SpeechRoute[] {
  return AUDIO_LANGUAGE_CODES.map((language) => {
    const kind = chooseKind(language, candidates);
    const chosen = candidates.find((c) => c.kind === kind) ?? null;
    const order = preferenceOf(language);
    const better = candidates.find(
      (c) =>
        !c.usable &&
        c.pull &&
        takes(c, language) &&
        order.includes(c.kind) &&
        (kind === null || order.indexOf(c.kind) < order.indexOf(kind)),
    );
    const around = routedAroundFor(language, candidates);
    return {
      language,
      engine: kind,
      model: chosen?.model ?? null,
      present: chosen !== null,
      pull: better?.pull ?? null,
      ...(around?.failure
        ? { routedAround: { engine: around.kind, model: around.model, reason: around.failure } }
        : {}),
    };
  });
}

/** The routes of a single engine (TRANSCRIPTION_ENGINE whisper, pocketsphinx or openai): it or nothing. Pure. */
export function singleEngineRoutes(
  engine: { kind: SpeechEngineName; languages: "all" | readonly string[] },
  model: string | null,
): SpeechRoute[] {
  return AUDIO_LANGUAGE_CODES.map((language) => {
    const ok = engine.languages === "all" || engine.languages.includes(language);
    return { language, engine: ok ? engine.kind : null, model: ok ? model : null, present: ok, pull: null };
  });
}
