import { AUDIO_LANGUAGE_CODES } from "@kikitori/shared";
import { routedAroundNotice } from "../src/engines/auto.ts";
import {
  chooseKind,
  preferenceOf,
  type RouteCandidate,
  routedAroundFor,
  routeTable,
  singleEngineRoutes,
} from "../src/engines/routes.ts";
import { PARAKEET_V3_LANGUAGES } from "../src/engines/sherpa-offline.ts";

const parakeet = (
  usable: boolean,
  languages: readonly string[] = PARAKEET_V3_LANGUAGES,
  failure: string | null = null,
): RouteCandidate => ({
  kind: "parakeet",
  languages,
  model: "parakeet-tdt-0.6b-v3-int8",
  usable,
  pull: "npm run models -- pull parakeet-tdt-0.6b-v3-int8 --sha256=<…>",
  failure,
});
const sensevoice = (usable: boolean, failure: string | null = null): RouteCandidate => ({
  kind: "sensevoice",
  languages: ["zh", "en", "ja", "ko", "yue"],
  model: "sense-voice-small-int8",
  usable,
  pull: "npm run models -- pull sense-voice-small-int8 --sha256=<…>",
  failure,
});
const whisper = (usable: boolean): RouteCandidate => ({
  kind: "whisper",
  languages: "all",
  model: "base",
  usable,
  pull: "npm run models -- pull base",
  failure: null,
});
const pocketsphinx = (usable: boolean): RouteCandidate => ({
  kind: "pocketsphinx",
  languages: ["en"],
  model: "en-us",
  usable,
  pull: null,
  failure: null,
});

describe("preferenceOf", () => {
  it("Parakeet first for its 25 European languages, SenseVoice for ja zh ko yue, Whisper for the rest", () => {
    expect(preferenceOf("en")).toEqual(["parakeet", "whisper", "pocketsphinx"]);
    for (const l of PARAKEET_V3_LANGUAGES.filter((x) => x !== "en"))
      expect(preferenceOf(l)).toEqual(["parakeet", "whisper"]);
    for (const l of ["ja", "zh", "ko", "yue"]) expect(preferenceOf(l)).toEqual(["sensevoice", "whisper"]);
    for (const l of ["ar", "tr", "hi", "no", "ca"]) expect(preferenceOf(l)).toEqual(["whisper"]);
  });
});

describe("chooseKind", () => {
  it("takes the best usable engine that takes the language, in order", () => {
    const all = [parakeet(true), sensevoice(true), whisper(true), pocketsphinx(true)];
    expect(chooseKind("de", all)).toBe("parakeet");
    expect(chooseKind("ja", all)).toBe("sensevoice");
    expect(chooseKind("ar", all)).toBe("whisper");
    expect(chooseKind("en", [parakeet(false), whisper(true), pocketsphinx(true)])).toBe("whisper");
    expect(chooseKind("en", [parakeet(false), whisper(false), pocketsphinx(true)])).toBe("pocketsphinx");
    expect(chooseKind("de", [parakeet(false), whisper(false), pocketsphinx(true)])).toBeNull();
  });

  it("v2 (English only) does not take German", () => {
    expect(chooseKind("de", [parakeet(true, ["en"]), whisper(true)])).toBe("whisper");
    expect(chooseKind("en", [parakeet(true, ["en"]), whisper(true)])).toBe("parakeet");
  });
});

describe("routeTable", () => {
  it("names every audio language once, with the engine, the model and whether it is present", () => {
    const routes = routeTable([parakeet(true), sensevoice(true), whisper(true), pocketsphinx(false)]);
    expect(routes.map((r) => r.language)).toEqual([...AUDIO_LANGUAGE_CODES]);
    const by = Object.fromEntries(routes.map((r) => [r.language, r]));
    expect(by.en).toEqual({
      language: "en",
      engine: "parakeet",
      model: "parakeet-tdt-0.6b-v3-int8",
      present: true,
      pull: null,
    });
    expect(by.ja).toMatchObject({ engine: "sensevoice", model: "sense-voice-small-int8", present: true, pull: null });
    expect(by.th).toMatchObject({ engine: "whisper", model: "base", present: true, pull: null });
  });

  it("with only Whisper: the better models' pull lines on the languages they would take", () => {
    const routes = routeTable([parakeet(false), sensevoice(false), whisper(true), pocketsphinx(false)]);
    const by = Object.fromEntries(routes.map((r) => [r.language, r]));
    expect(by.fr).toMatchObject({ engine: "whisper", present: true, pull: parakeet(false).pull });
    expect(by.ko).toMatchObject({ engine: "whisper", pull: sensevoice(false).pull });
    expect(by.sw).toMatchObject({ engine: "whisper", pull: null });
  });

  it("with nothing but pocketsphinx: English on it, other languages refused with the model that would take them", () => {
    const routes = routeTable([parakeet(false), sensevoice(false), whisper(false), pocketsphinx(true)]);
    const by = Object.fromEntries(routes.map((r) => [r.language, r]));
    expect(by.en).toMatchObject({ engine: "pocketsphinx", model: "en-us", present: true, pull: parakeet(false).pull });
    expect(by.ja).toMatchObject({ engine: null, model: null, present: false, pull: sensevoice(false).pull });
    expect(by.ar).toMatchObject({ engine: null, present: false, pull: "npm run models -- pull base" });
  });
});

describe("routed around", () => {
  const BROKEN = "the parakeet model parakeet-tdt-0.6b-v3-int8 could not be loaded: bad encoder";

  it("a language whose better model failed to load is routed around it; one whose model was never pulled is not", () => {
    const failed = [
      parakeet(false, PARAKEET_V3_LANGUAGES, BROKEN),
      sensevoice(false),
      whisper(true),
      pocketsphinx(false),
    ];
    expect(routedAroundFor("en", failed)?.kind).toBe("parakeet");
    expect(routedAroundFor("de", failed)?.kind).toBe("parakeet");
    // SenseVoice is missing, not broken: Japanese on Whisper is the plain route.
    expect(routedAroundFor("ja", failed)).toBeNull();
    // Whisper is the best engine for Arabic: nothing to route around.
    expect(routedAroundFor("ar", failed)).toBeNull();
    const missing = [parakeet(false), sensevoice(false), whisper(true), pocketsphinx(false)];
    expect(routedAroundFor("en", missing)).toBeNull();
  });

  it("a broken SenseVoice routes Japanese around it, not English, whose best engine Parakeet is up", () => {
    const c = [parakeet(true), sensevoice(false, "bad model"), whisper(true), pocketsphinx(false)];
    expect(routedAroundFor("ja", c)?.kind).toBe("sensevoice");
    expect(routedAroundFor("en", c)).toBeNull();
  });

  it("a language left with no engine at all is still routed around the broken one", () => {
    const c = [parakeet(false, PARAKEET_V3_LANGUAGES, BROKEN), sensevoice(true), whisper(false), pocketsphinx(false)];
    expect(chooseKind("de", c)).toBeNull();
    expect(routedAroundFor("de", c)?.kind).toBe("parakeet");
  });

  it("the routes keep the broken engine, its model and why; the others carry nothing of it", () => {
    const routes = routeTable([
      parakeet(false, PARAKEET_V3_LANGUAGES, BROKEN),
      sensevoice(true),
      whisper(true),
      pocketsphinx(false),
    ]);
    const by = Object.fromEntries(routes.map((r) => [r.language, r]));
    expect(by.en).toMatchObject({
      engine: "whisper",
      present: true,
      routedAround: { engine: "parakeet", model: "parakeet-tdt-0.6b-v3-int8", reason: BROKEN },
    });
    expect(by.fr.routedAround?.engine).toBe("parakeet");
    expect(by.ja).not.toHaveProperty("routedAround");
    expect(by.ar).not.toHaveProperty("routedAround");
    expect(
      routes
        .filter((r) => r.routedAround)
        .map((r) => r.language)
        .sort(),
    ).toEqual([...PARAKEET_V3_LANGUAGES].sort());
  });
});

describe("singleEngineRoutes", () => {
  it("routes what the one engine takes to it and refuses the rest", () => {
    const routes = singleEngineRoutes({ kind: "pocketsphinx", languages: ["en"] }, "en-us");
    expect(routes.filter((r) => r.engine !== null).map((r) => r.language)).toEqual(["en"]);
    expect(routes.find((r) => r.language === "de")).toEqual({
      language: "de",
      engine: null,
      model: null,
      present: false,
      pull: null,
    });
  });
});

describe("routedAroundNotice", () => {
  const rough = { code: "SPEECH_FALLBACK_ROUGH" as const, setting: "WHISPER_MODEL / MODELS_DIR", reason: "no Whisper" };

  it("none when no model failed to load (a missing model is not a failure)", () => {
    expect(
      routedAroundNotice([parakeet(false), sensevoice(false), whisper(true), pocketsphinx(false)], null),
    ).toBeNull();
  });

  it("names the failed models, why, and their settings", () => {
    const n = routedAroundNotice(
      [parakeet(false, PARAKEET_V3_LANGUAGES, "parakeet broke"), sensevoice(false, "sensevoice broke"), whisper(true)],
      null,
    );
    expect(n?.code).toBe("SPEECH_ROUTED_AROUND");
    expect(n?.reason).toMatch(/^parakeet broke; sensevoice broke; /);
    expect(n?.setting).toMatch(/PARAKEET_MODEL_DIR.*SENSEVOICE_MODEL_DIR/);
  });

  it("the rough fallback's notice is more important and is kept", () => {
    expect(routedAroundNotice([parakeet(false, PARAKEET_V3_LANGUAGES, "broke"), whisper(false)], rough)).toBe(rough);
  });
});
