import { AUDIO_LANGUAGE_CODES } from "@kikitori/shared";
import {
  chooseKind,
  preferenceOf,
  type RouteCandidate,
  routeTable,
  singleEngineRoutes,
} from "../src/engines/routes.ts";
import { PARAKEET_V3_LANGUAGES } from "../src/engines/sherpa-offline.ts";

const parakeet = (usable: boolean, languages: readonly string[] = PARAKEET_V3_LANGUAGES): RouteCandidate => ({
  kind: "parakeet",
  languages,
  model: "parakeet-tdt-0.6b-v3-int8",
  usable,
  pull: "npm run models -- pull parakeet-tdt-0.6b-v3-int8 --sha256=<…>",
});
const sensevoice = (usable: boolean): RouteCandidate => ({
  kind: "sensevoice",
  languages: ["zh", "en", "ja", "ko", "yue"],
  model: "sense-voice-small-int8",
  usable,
  pull: "npm run models -- pull sense-voice-small-int8 --sha256=<…>",
});
const whisper = (usable: boolean): RouteCandidate => ({
  kind: "whisper",
  languages: "all",
  model: "base",
  usable,
  pull: "npm run models -- pull base",
});
const pocketsphinx = (usable: boolean): RouteCandidate => ({
  kind: "pocketsphinx",
  languages: ["en"],
  model: "en-us",
  usable,
  pull: null,
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
